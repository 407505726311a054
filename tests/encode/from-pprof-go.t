#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# from-pprof on real Go profiles (fixtures/pprof, written by runtime/pprof):
# for every sample type, the total and the flat value of every leaf function
# equal what `go tool pprof -top` reports; inline frames are expanded, as
# the Go heap profile's inlined strings.(*Builder).WriteString shows.
import glob
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from enclib import ok, done, run, pprof_top, close  # noqa: E402

UNITS = {"bytes": "B", "nanoseconds": "ns", "count": None}

for pb in sorted(glob.glob("fixtures/pprof/*.pb.gz")):
    name = os.path.basename(pb)
    st, types, err = run(["from-pprof", "--list", pb])
    if not ok(st == 0 and types.strip(), f"{name}: sample types listed", err.strip()):
        continue
    for t in types.split():
        stype, unit = t.split("/")
        st, out, err = run(["from-pprof", "-s", stype, pb])
        total = 0
        flat = {}
        for ln in out.splitlines():
            stack, v = ln.rsplit(" ", 1)
            total += int(v)
            leaf = stack.split(";")[-1]
            flat[leaf] = flat.get(leaf, 0) + int(v)
        pst, perr, ptotal, pflat = pprof_top(pb, stype, UNITS.get(unit))
        if not ok(st == 0 and pst == 0 and ptotal is not None,
                  f"{name} {stype}: from-pprof and go tool pprof read it", err + perr):
            continue
        ok(close(total, ptotal, absolute=1), f"{name} {stype}: total {total} equals pprof's {ptotal:.0f}")
        bad = [f"{k}: {flat.get(k, 0)} vs {v:.0f}" for k, v in pflat.items()
               if v and not close(flat.get(k, 0), v, absolute=1)]
        ok(not bad, f"{name} {stype}: flat value of each of {len(pflat)} functions equals pprof's",
           "; ".join(bad[:4]))

st, out, _ = run(["from-pprof", "-s", "alloc_space", "fixtures/pprof/go-heap.pb.gz"])
ok(any(ln.startswith("runtime.main;main.main;main.buildStrings;strings.(*Builder).WriteString ")
       for ln in out.splitlines()), "go-heap: the inlined WriteString is its own frame under buildStrings")
done()
