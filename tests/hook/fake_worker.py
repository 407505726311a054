#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A worker of a hooked program that answers what a test wants
(tests/hook/worker-answers.t, bench/proxy-mem.sh): it registers with the
listener of HOSTPID's group as a worker does (a process of the same user
may), serves HTTP on its own socket and answers every request with MODE:
  leak     the settings alternate a 319-byte filler of 'Z' and a 300-byte
           object whose last value ("mallctl_module":x) runs to the end of
           the answer unquoted, so a reader that goes past the answer shows
           the filler's bytes
  big N    N bytes (a repeating pattern, Content-Length N) for anything
It prints "fake PID" once registered, then serves until killed.
Usage: fake_worker.py HOSTPID MODE [N]"""
import os
import socket
import sys


def group_of(hostpid):
    """The group whose listener is in /proc/net/unix and was named by
    hostpid (its first listener)."""
    for line in open("/proc/net/unix"):
        f = line.split()
        if len(f) >= 8 and f[7].startswith("@flamekit-hook/") and f[7].endswith("/listener"):
            g = f[7].split("/")[1]
            if g.startswith("%d-" % hostpid):
                return g
    return None


def answer(status, ctype, body):
    return (b"HTTP/1.0 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
            b"Connection: close\r\n\r\n" % (status, ctype, len(body)))


def pattern(n):
    unit = b"0123456789abcdef" * 4096
    return (unit * (n // len(unit) + 1))[:n]


def main():
    hostpid, mode = int(sys.argv[1]), sys.argv[2]
    g = group_of(hostpid)
    if not g:
        sys.exit("fake_worker: no group of process %d in /proc/net/unix" % hostpid)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind("\0flamekit-hook/%s/%d" % (g, os.getpid()))
    srv.listen(64)
    reg = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    reg.connect("\0flamekit-hook/%s/listener" % g)
    reg.sendall(b"%d\n" % os.getpid())
    print("fake %d" % os.getpid(), flush=True)
    n = 0
    big = pattern(int(sys.argv[3])) if mode == "big" else b""
    while True:
        c, _ = srv.accept()
        req = b""
        while b"\r\n\r\n" not in req:
            b = c.recv(4096)
            if not b:
                break
            req += b
        n += 1
        try:
            if mode == "leak":
                if n % 2:
                    body = b"Z" * 319
                else:
                    tail = b'","mallctl":"m","mallctl_module":x'
                    body = b'{"pad":"' + b"a" * (300 - 8 - len(tail)) + tail
                c.sendall(answer(200, b"application/json", body) + body)
            else:
                c.sendall(answer(200, b"application/octet-stream", big))
                c.sendall(big)
        except OSError:
            pass  # the listener stopped reading: what a bound does
        c.close()


if __name__ == "__main__":
    main()
