#!/usr/bin/env python3
"""A server an attacker runs to collect credentials (e2e/security_e2e.sh, docs/security.md H1):
it answers every request like a ready API server and appends the request line and its
Authorization header (or "-") to LOG. With CERT and KEY it serves TLS, otherwise plain HTTP.
Prints the bound port on stdout, then serves until killed.
Usage: credential_trap.py LOG [CERT KEY]"""
import http.server
import ssl
import sys


class Trap(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[1], "a") as log:
            log.write(f"{self.command} {self.path} {self.headers.get('Authorization', '-')}\n")
        body = b"ok" if self.path.startswith(("/readyz", "/healthz")) else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain" if body == b"ok" else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trap)
if len(sys.argv) > 3:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
open(sys.argv[1], "a").close()
server.serve_forever()
