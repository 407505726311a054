#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Connection latency to a hook (bench/peer.sh): N new connections, each one
# GET of a route that does no work (a 404), timed from connect to the end
# of the answer; prints the median and the 90th percentile in microseconds.
# Usage: peer-conn.py PORT [N]
import socket, sys, time

port = int(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
req = b"GET /nothing HTTP/1.0\r\nHost: localhost\r\n\r\n"
t = []
for _ in range(n):
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    while s.recv(4096):
        pass
    s.close()
    t.append((time.perf_counter() - t0) * 1e6)
t.sort()
print("median_us %.0f p90_us %.0f n %d" % (t[n // 2], t[n * 9 // 10], n))
