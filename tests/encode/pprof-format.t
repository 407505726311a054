#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An independent decoder, the npm package pprof-format (installed in
# tests/encode/node_modules by scripts/install-deps), reads what to-pprof
# writes: string_table[0] is "", sample types, period and totals are those
# from-pprof reports, no id dangles, every executable file mapping of the
# dump is there with its exact range, and the profile re-encoded by
# pprof-format reads back to the same folded stacks. The Go fixtures give
# the same totals through both decoders.
import glob
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from enclib import (ok, done, run, tmp, symbolize, to_pprof, read_dump,  # noqa: E402
                    parse_maps)

HERE = "tests/encode"
if not ok(os.path.isdir(os.path.join(HERE, "node_modules", "pprof-format")),
          "npm pprof-format is installed in tests/encode",
          "run scripts/install-deps (npm install in tests/encode)"):
    done()


def summary(pb, reencoded=None):
    st, out, err = run(["node", os.path.join(HERE, "pprof-summary.mjs"), pb] +
                       ([reencoded] if reencoded else []))
    if st != 0:
        return None, err.strip()[:300]
    return json.loads(out), ""


def folded_total(pb, stype):
    st, out, _ = run(["from-pprof", "-s", stype, pb])
    return sum(int(ln.rsplit(" ", 1)[1]) for ln in out.splitlines()) if st == 0 else None


def check(name, pb, dump=None, raw=False):
    s, why = summary(pb, tmp(name + ".re.pb"))
    if not ok(s is not None, f"{name}: pprof-format decodes it", why):
        return
    ok(s["string0"] == "", f"{name}: string_table[0] is empty")
    ok(s["dangling"] == 0, f"{name}: every referenced id exists", f"{s['dangling']} dangling")
    st, types, _ = run(["from-pprof", "--list", pb])
    ok(st == 0 and s["sampleTypes"] == types.split(), f"{name}: sample types {s['sampleTypes']}")
    bad = []
    for t, total in zip(s["sampleTypes"], s["totals"]):
        ft = folded_total(pb, t.split("/")[0])
        if ft != int(total):
            bad.append(f"{t}: {total} vs from-pprof {ft}")
    ok(not bad, f"{name}: totals of every sample type agree with from-pprof", "; ".join(bad))
    st1, a, _ = run(["from-pprof", pb])
    st2, b, e = run(["from-pprof", tmp(name + ".re.pb")])
    ok(st1 == 0 and st2 == 0 and a == b, f"{name}: re-encoded by pprof-format, reads back the same",
       e.strip())
    if dump is None:
        return
    stacks, period, maps = read_dump(dump)
    ok(s["defaultSampleType"] == "inuse_space" and s["periodType"] == "space/bytes" and
       s["period"] == str(period), f"{name}: default inuse_space, period space/bytes {period}",
       f"{s['defaultSampleType']} {s['periodType']} {s['period']}")
    ranges = {(int(a), int(b), int(c)): f for a, b, c, f in s["mappingRanges"]}
    missing = [f"{st:x}-{li:x} {path}" for st, li, off, perms, path in parse_maps(maps)
               if perms[2:3] == "x" and path and not path.startswith("[") and
               ranges.get((st, li, off)) != path]
    ok(not missing, f"{name}: every executable file mapping is listed exactly", "; ".join(missing[:3]))
    if raw:
        ok(not any(s["mappingFlags"]), f"{name}: address-only mappings claim no symbols")
    else:
        ok(any(s["mappingFlags"]), f"{name}: symbolized mappings say they carry functions")


for dump in sorted(glob.glob("fixtures/dumps/*.prof")):
    name = os.path.basename(dump)[:-5]
    try:
        raw_pb = to_pprof(dump, tmp(name + ".raw.pb.gz"))
        sym_pb = to_pprof(symbolize(dump, tmp(name + ".sym")), tmp(name + ".pb.gz"))
    except RuntimeError as e:
        ok(False, f"{name}: symbolize and to-pprof", str(e))
        continue
    check(name + " raw", raw_pb, dump, raw=True)
    check(name + " symbolized", sym_pb, dump)

for pb in sorted(glob.glob("fixtures/pprof/*.pb.gz")):
    check(os.path.basename(pb), pb)

done()
