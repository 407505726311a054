# SPDX-License-Identifier: MIT
# For tests/hook/unwind.t: the stacks of a raw jemalloc dump with each
# address written as MODULE+0xFILEOFFSET (the same in two runs of a program
# whatever the load addresses), one stack a line, leaf first, with its
# sampled count, sorted. --drop-first drops every stack's leaf frame (libgcc
# starts one frame deeper, in prof_backtrace_impl); --no-count prints the
# stacks alone (for workloads whose counts vary).
import os
import sys

args = [a for a in sys.argv[1:] if a.startswith("--")]
path = [a for a in sys.argv[1:] if not a.startswith("--")][0]
lines = open(path, encoding="latin-1").read().split("\n")
maps = []
if "MAPPED_LIBRARIES:" in lines:
    for m in lines[lines.index("MAPPED_LIBRARIES:") + 1:]:
        f = m.split()
        if len(f) < 5 or "-" not in f[0]:
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        name = os.path.basename(f[5]) if len(f) > 5 else "[anon]"
        maps.append((lo, hi, int(f[2], 16), name))


def where(a):
    for lo, hi, off, name in maps:
        if lo <= a < hi:
            return "%s+0x%x" % (name, a - lo + off)
    return "?+0x%x" % a


out = {}
for i, l in enumerate(lines):
    if not l.startswith("@"):
        continue
    pcs = [int(x, 16) for x in l.split()[1:]]
    if "--drop-first" in args:
        pcs = pcs[1:]
    key = " ".join(where(a) for a in pcs)
    n = int(lines[i + 1].split()[1].rstrip(":")) if i + 1 < len(lines) and "t*:" in lines[i + 1] else 0
    out[key] = out.get(key, 0) + n
for k in sorted(out):
    print(k if "--no-count" in args else "%s %d" % (k, out[k]))
