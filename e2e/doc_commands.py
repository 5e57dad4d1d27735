#!/usr/bin/env python3
"""Prints the shell commands of a Markdown document, one per record (NUL-separated), in order.

A command is every line of a ```sh block, or a `$ ` line of a plain ``` block (an example
session: the command and, after it, what it printed). Lines ending in a backslash, a quoted
string still open at the end of a line, and here-documents (`<<'YAML'` ... `YAML`) continue the
command. Used by e2e/tutorial_e2e.sh to run the
tutorial's commands as a reader types them.
"""
import re
import sys


def open_quote(command):
    """True while a single- or double-quoted string of `command` is still open (a `#` comment's
    apostrophes quote nothing)."""
    quote = None
    comment = False
    for i, ch in enumerate(command):
        if comment:
            comment = ch != "\n"
        elif quote is None and ch == "#" and (i == 0 or command[i - 1].isspace()):
            comment = True
        elif quote is None and ch in "'\"":
            quote = ch
        elif ch == quote:
            quote = None
    return quote is not None


def commands(text):
    out = []
    fence = None  # None outside a block, "sh" in a ```sh block, "session" in a plain one
    pending = None  # a command still being continued
    heredoc = None  # the word that ends the current here-document
    for line in text.splitlines():
        if pending is not None:
            if line.startswith("```"):
                raise SystemExit("doc_commands: a command is still open at a closing fence: "
                                 + pending.splitlines()[0])
            pending += "\n" + line
            if heredoc is not None:  # a here-document's body is data: only its end matters
                if line == heredoc:
                    heredoc = None
                    out.append(pending)
                    pending = None
                continue
            if not line.endswith("\\") and not open_quote(pending):
                out.append(pending)
                pending = None
            continue
        if line.startswith("```"):
            if fence is None:
                fence = "sh" if line.strip() in ("```sh", "```bash") else "session"
            else:
                fence = None
            continue
        if fence is None:
            continue
        if fence == "sh":
            command = line
        elif line.startswith("$ "):
            command = line[2:]
        else:
            continue
        if not command.strip() or command.lstrip().startswith("#"):
            continue
        marker = None if open_quote(command.split("<<")[0]) else re.search(
            r"(?<!<)<<-?\s*'?\"?([A-Za-z_]+)'?\"?", command)
        if marker:
            heredoc = marker.group(1)
        if marker or command.endswith("\\") or open_quote(command):
            pending = command
        else:
            out.append(command)
    if pending is not None:
        raise SystemExit("doc_commands: a command is still open at the end: "
                         + pending.splitlines()[0])
    return out


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        for c in commands(f.read()):
            sys.stdout.write(c + "\0")
