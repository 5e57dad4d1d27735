#!/usr/bin/env python3
"""Holds COUNT connections open to 127.0.0.1:PORT, each sending half a TLS record and nothing
more, for SECONDS; a connection the server closes is opened again (e2e/security_e2e.sh,
docs/security.md M2). Prints the number open once all are, then every second."""
import select
import socket
import sys
import time

port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def connect(i):
    s = socket.create_connection(("127.0.0.1", port))
    if i % 2 == 0:
        s.send(b"\x16\x03\x01")
    s.setblocking(False)
    return s


socks = [connect(i) for i in range(count)]
print(len(socks), flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    readable, _, _ = select.select(socks[:1000], [], [], 0.2) if socks else ([], [], [])
    for s in readable:
        try:
            closed = s.recv(4096) == b""
        except OSError:
            closed = True
        if closed:
            i = socks.index(s)
            s.close()
            socks[i] = connect(i)
print(len(socks), flush=True)
