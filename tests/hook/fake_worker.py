#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A worker of a hooked program that answers what a test wants
(tests/hook/worker-answers.t, bench/proxy-mem.sh): it registers with the
listener of HOSTPID's group as a worker does (a process of the same user
may), serves HTTP on its own socket, answers the listener's questions on
its registry connection (one byte, "?", for the processes list) and
answers as MODE says:
  lines    the questions in turn: a line of 1000 'Z', a status line with a
           control byte in its module, and a good status line ("v, m in
           x", enabled) sent in two parts 0.2 s apart
  flood N  every question: N bytes of 'Z' and a newline
  big N    every question a good status line; every HTTP request N bytes
           (a repeating pattern, Content-Length N)
It prints "fake PID" once registered, then serves until killed.
Usage: fake_worker.py HOSTPID MODE [N]"""
import os
import socket
import sys
import threading
import time


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


GOOD = b"status\t1\tv\tm\tx\n"


def questions(reg, mode, n):
    """Answers each question on the registry connection as MODE says."""
    asked = 0
    while True:
        b = reg.recv(16)
        if not b:
            return
        for _ in range(b.count(b"?")):
            asked += 1
            if mode == "lines":
                k = asked % 3
                if k == 1:
                    reg.sendall(b"Z" * 1000 + b"\n")
                elif k == 2:
                    reg.sendall(b"status\t1\tv\tm\tx\x01y\n")
                else:
                    reg.sendall(GOOD[:12])
                    time.sleep(0.2)
                    reg.sendall(GOOD[12:])
            elif mode == "flood":
                reg.sendall(b"Z" * n + b"\n")
            else:
                reg.sendall(GOOD)


def main():
    hostpid, mode = int(sys.argv[1]), sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    g = group_of(hostpid)
    if not g:
        sys.exit("fake_worker: no group of process %d in /proc/net/unix" % hostpid)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind("\0flamekit-hook/%s/%d" % (g, os.getpid()))
    srv.listen(64)
    reg = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    reg.connect("\0flamekit-hook/%s/listener" % g)
    reg.sendall(b"%d\n" % os.getpid())
    threading.Thread(target=questions, args=(reg, mode, n), daemon=True).start()
    print("fake %d" % os.getpid(), flush=True)
    big = pattern(n) if mode == "big" else b""
    while True:
        c, _ = srv.accept()
        req = b""
        while b"\r\n\r\n" not in req:
            b = c.recv(4096)
            if not b:
                break
            req += b
        try:
            c.sendall(answer(200, b"application/octet-stream", big))
            c.sendall(big)
        except OSError:
            pass  # the listener stopped reading: what a bound does
        c.close()


if __name__ == "__main__":
    main()
