#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The hook's query parameters under mutation (issue 22, "Done means"): 800
# requests (seed 22) to every route of a live host with parameters drawn
# from the real names and junk, values from the valid ones, edge numbers
# and random bytes, percent-encoded. Every answer is a status the route
# documents (never 500, never a dropped connection), an error is one line,
# the host lives on and its stderr holds no sanitizer report.
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

B = os.environ.get("B", "build")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(TOP)
JE = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
n = 0
fails = 0


def ok(cond, what):
    global n, fails
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    if not cond:
        fails += 1
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def request(port, method, target, headers=()):
    """(status, body) of one HTTP/1.0 request, or (None, why)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            h = "".join("%s: %s\r\n" % kv for kv in headers)
            s.sendall(("%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s\r\n" % (method, target, h)).encode())
            data = b""
            while True:
                c = s.recv(65536)
                if not c:
                    break
                data += c
    except OSError as e:
        return None, str(e)
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        return int(head.split(b" ", 2)[1]), body
    except (IndexError, ValueError):
        return None, "no status line: %r" % data[:100]


ROUTES = [("GET", "/internal/heap/settings"), ("POST", "/internal/heap/settings"),
          ("GET", "/internal/heap"), ("POST", "/internal/heap/snapshot"),
          ("GET", "/internal/heap/timeline"), ("GET", "/debug/pprof/heap"),
          ("GET", "/debug/pprof/allocs"), ("GET", "/")]
NAMES = ["format", "snapshot", "base", "title", "colors", "minwidth", "inverted",
         "max_samples", "seconds", "enabled", "lg_sample", "x", "", "FORMAT", "format[]"]
VALUES = {
    "format": ["pprof", "flame", "folded", "raw", "symbolized", "json", "", "PPROF", "svg"],
    "snapshot": ["1", "2", "0", "-1", "4294967296", "s1", ""],
    "base": ["1", "0", "99", "", "x"],
    "title": ["t", "", "<script>", "a" * 300, "\u00e9\u6f22", "]]>"],
    "colors": ["mem", "hot", "io", "nope", ""],
    "minwidth": ["0", "1", "2%", "100%", "101%", "1e6", "1e7", "-1", "nan", "%", ""],
    "inverted": ["true", "false", "1", "0", "", "yes"],
    "max_samples": ["0", "1", "16000", "4294967295", "4294967296", "-1", "x"],
    "seconds": ["0", "x", "-1", "3601", "1e9", "", "0.0"],
    "enabled": ["true", "false", "", "maybe"],
    "lg_sample": ["12", "13", "0", "63", "64", "-1", "x"],
}
NUMS = ["0", "1", "-1", "18446744073709551616", "99999999999999999999", "0x10", "1e308", "inf"]
ALLOWED = {200, 400, 403, 404, 405, 409, 413, 414, 429, 431, 503}


def value(rng, name):
    r = rng.random()
    if r < 0.6 and name in VALUES:
        return rng.choice(VALUES[name])
    if r < 0.8:
        return rng.choice(NUMS)
    return "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randrange(0, 12)))


def main():
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="fk-qmut.")
    env = dict(os.environ, LD_PRELOAD="%s/libflamekit-hook.so %s" % (B, JE),
               FLAMEKIT_HTTP="127.0.0.1:%d" % port, FLAMEKIT_SNAPSHOT_S="0",
               MALLOC_CONF="lg_prof_sample:12")
    err = open(os.path.join(tmp, "err"), "wb")
    host = subprocess.Popen([os.path.join(B, "hook-alloc-prog")], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=err)
    host.stdout.readline()                       # "ready"
    for _ in range(300):
        if request(port, "GET", "/internal/heap/settings")[0] == 200:
            break
        time.sleep(0.1)
    ok(request(port, "POST", "/internal/heap/settings?enabled=true",
               [("X-Flamekit", "1")])[0] == 200, "sampling on")
    host.stdin.write(b"grow 20\n")
    host.stdin.flush()
    host.stdout.readline()
    rng = random.Random(22)
    bad = []
    statuses = {}
    for i in range(800):
        method, path = rng.choice(ROUTES)
        q = []
        for _ in range(rng.randrange(0, 5)):
            nm = rng.choice(NAMES)
            q.append(urllib.parse.quote(nm, safe="") + "=" + urllib.parse.quote(value(rng, nm), safe=""))
        if rng.random() < 0.05:
            q.append(rng.choice(["format", "seconds", "&&", "=", "%zz", "%00"]))
        target = path + ("?" + "&".join(q) if q else "")
        st, body = request(port, method, target, [("X-Flamekit", "1")])
        statuses[st] = statuses.get(st, 0) + 1
        if st not in ALLOWED:
            bad.append("%s %s: %s %r" % (method, target, st, body[:200]))
        elif st >= 400 and body.rstrip(b"\n").count(b"\n") != 0:
            bad.append("%s %s: %d with a body of several lines" % (method, target, st))
        # Sampling back on now and then, so profiles have something.
        if i % 50 == 49:
            request(port, "POST", "/internal/heap/settings?enabled=true", [("X-Flamekit", "1")])
    print("# statuses: %s" % ", ".join("%s: %d" % kv for kv in sorted(statuses.items(), key=str)))
    ok(not bad, "800 mutated requests: documented statuses, one-line errors%s"
       % ("" if not bad else ": " + "; ".join(bad[:5])))
    ok(request(port, "GET", "/internal/heap/settings")[0] == 200, "the host still serves")
    host.stdin.write(b"quit\n")
    host.stdin.close()
    try:
        rc = host.wait(timeout=30)
    except subprocess.TimeoutExpired:
        host.kill()
        rc = None
    ok(rc == 0, "the host exits cleanly (%s)" % rc)
    err.close()
    text = open(os.path.join(tmp, "err"), "rb").read().decode(errors="replace")
    ok("Sanitizer" not in text and "runtime error" not in text,
       "no sanitizer report on the host's stderr")
    print("1..%d" % n)
    return 1 if fails else 0


sys.exit(main())
