# SPDX-License-Identifier: MIT
# Holds 40 connections to 127.0.0.1:PORT open, each halfway through a GET
# of PATH with PAD bytes of headers, so that a server keeps their memory in
# use (svclib.sh's hold_conns). Writes "held" to OUT once they are open;
# when stdin ends, finishes each request and fails unless each answered.
# Usage: hold_conns.py PORT PATH PAD OUT
import socket, sys

port, path, pad, out = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4]
conns = []
for i in range(40):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * pad + b"\r\n")
    conns.append(s)
open(out, "w").write("held\n")
sys.stdin.read()
for s in conns:
    s.sendall(b"\r\n")
    if not s.recv(1):
        sys.exit(1)
    s.close()
