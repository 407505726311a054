#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the synthetic heap profile (folded stacks) of the page benchmarks:
LINES lines (default 120000, about 105 MB; 100000 lines are about 86 MB),
about 12 frames of its own per line (1.46M frames at 120k lines when every
frame is kept), shared hot prefixes of depth 8-30 the way real heap stacks
share main loops, and names from a Zipf pool that mixes short C names with
long C++ template names. Deterministic for a given seed.
Usage: bench/gen-synth.py [LINES [SEED]] > FILE
"""
import random
import sys

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 120000
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 15)

words = ["alloc", "buffer", "parse", "node", "tree", "index", "query", "plan",
         "exec", "scan", "hash", "join", "sort", "merge", "cache", "page",
         "lock", "log", "flush", "read", "write", "encode", "decode", "map",
         "vector", "string", "table", "row", "column", "batch", "stream", "task"]
types = ["int", "unsigned long", "std::string",
         "std::vector<int, std::allocator<int> >",
         "std::shared_ptr<db::Node>", "absl::Span<const unsigned char>"]


def make_name(i):
    w = rng.sample(words, 3)
    if i % 2 == 0:
        return "%s_%s_%d" % (w[0], w[1], i)
    t = rng.sample(types, 2)
    return "db::%s::%s<%s>::%s_%d(%s)" % (w[0].capitalize(), w[1].capitalize(),
                                          t[0], w[2], i, t[1])


pool = [make_name(i) for i in range(60000)]
weights = [1.0 / (k + 1) ** 0.9 for k in range(len(pool))]
cum = []
acc = 0.0
for x in weights:
    acc += x
    cum.append(acc)


def pick():
    import bisect
    return pool[min(bisect.bisect(cum, rng.random() * acc), len(pool) - 1)]


hot = []
for h in range(400):
    d = rng.randint(6, 20)
    base = ["main", "run_loop_%d" % (h % 7), "handle_%d" % (h % 37)]
    hot.append(base + [pick() for _ in range(d - 3)])

out = []
for i in range(lines):
    p = hot[int(len(hot) * rng.random() ** 2)]
    st = p[:rng.randint(len(p) // 2, len(p))]
    st = st + [pick() for _ in range(rng.randint(8, 16))]
    st.append("operator new(unsigned long)" if i % 4 else "malloc")
    out.append(";".join(st) + " " + str(int(rng.paretovariate(1.2) * 4096)))
out.sort()
sys.stdout.write("\n".join(out) + "\n")
