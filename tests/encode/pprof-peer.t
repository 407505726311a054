#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Peer check of to-pprof: for every fixture dump, symbolize it and write
# pprof; `go tool pprof -raw/-top/-traces` must read it with no warning, the
# sample types and period must be as specified, the total and the flat value
# of every function must equal `jeprof --text` on the same symbolized profile
# within 0.1 %, and `to-pprof | from-pprof` must equal `to-folded`.
import glob
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from enclib import (ok, done, run, tmp, symbolize, to_pprof, read_dump,  # noqa: E402
                    pprof_raw, pprof_top, jeprof_text, close)


def jeprof_name(name):
    """The name jeprof shows for a function (its ShortFunctionName): no
    argument lists, no <...> (C++ template, Rust generic arguments and
    qualified paths), no leading return type."""
    for rx in (r"\([^()]*\)(\s*const)?", r"<[^<>]*>"):
        while True:
            name, n = re.subn(rx, "", name)
            if n == 0:
                break
    return re.sub(r"^.*\s+(\w+::)", r"\1", name, count=1)


def by_jeprof_name(flat):
    out = {}
    for k, v in flat.items():
        out[jeprof_name(k)] = out.get(jeprof_name(k), 0.0) + v
    return out


dumps = sorted(glob.glob("fixtures/dumps/*.prof"))
ok(len(dumps) >= 5, "fixture dumps found", f"{len(dumps)} in fixtures/dumps")
# jeprof takes seconds on the big ones; they get the go tool pprof checks.
JEPROF_MAX = 1 << 20

for dump in dumps:
    name = os.path.basename(dump)[:-5]
    try:
        sym = symbolize(dump, tmp(name + ".sym"))
        pb = to_pprof(sym, tmp(name + ".pb.gz"))
        raw_pb = to_pprof(dump, tmp(name + ".raw.pb.gz"))
    except RuntimeError as e:
        ok(False, f"{name}: symbolize and to-pprof", str(e))
        continue
    stacks, period, _ = read_dump(dump)
    accum = any(c[2] or c[3] for _, c in stacks)

    for mode in ("-raw", "-top", "-traces"):
        st, out, err = run(["go", "tool", "pprof", mode, pb])
        ok(st == 0 and err == "" and out.strip() != "",
           f"{name}: go tool pprof {mode} reads it without a warning",
           f"status {st}, stderr {err.strip()[:200]!r}")

    st, err, out, samples, locs, maps = pprof_raw(pb)
    want_types = ("alloc_objects/count alloc_space/bytes " if accum else "") + \
        "inuse_objects/count inuse_space/bytes[dflt]"
    ok(want_types in out, f"{name}: sample types {want_types}")
    ok("PeriodType: space bytes" in out, f"{name}: period type space/bytes")
    ok(f"Period: {period}\n" in out, f"{name}: period {period}")

    a = open(pb, "rb").read()
    to_pprof(sym, tmp(name + ".again.pb.gz"))
    ok(a == open(tmp(name + ".again.pb.gz"), "rb").read() and a[4:8] == b"\0\0\0\0",
       f"{name}: output is byte-for-byte deterministic, gzip mtime 0")

    for src, p in ((sym, pb), (dump, raw_pb)):
        kind = "symbolized" if src == sym else "raw"
        for opts, stype in (([], None), (["--value", "objects"], "inuse_objects")) + \
                (((["--alloc"], "alloc_space"),) if accum else ()):
            st1, folded, e1 = run(["to-folded", *opts, src])
            st2, back, e2 = run(["from-pprof"] + (["-s", stype] if stype else []) + [p])
            ok(st1 == 0 and st2 == 0 and folded == back and folded != "",
               f"{name}: {kind} to-pprof | from-pprof {stype or ''} equals to-folded {' '.join(opts)}",
               f"{e1.strip()} {e2.strip()} {len(folded)} vs {len(back)} bytes")

    if os.path.getsize(dump) > JEPROF_MAX:
        continue
    modes = [("inuse_space", "B"), ("inuse_objects", None)]
    if accum:
        modes += [("alloc_space", "B"), ("alloc_objects", None)]
    for index, unit in modes:
        jt, jf = jeprof_text(sym, index)
        st, err, pt, pf = pprof_top(pb, index, unit)
        pf = by_jeprof_name(pf)
        if jt is None or pt is None:
            ok(False, f"{name}: {index} totals", f"jeprof {jt}, pprof {pt} ({err.strip()[:100]})")
            continue
        ok(close(jt, pt), f"{name}: {index} total equals jeprof's ({pt:.0f} vs {jt:.0f})")
        bad = [f"{k}: {pf.get(k, 0):.0f} vs {v:.0f}" for k, v in jf.items()
               if v != 0 and not close(v, pf.get(k, 0.0))]
        bad += [f"{k}: {v:.0f} vs none" for k, v in pf.items() if v != 0 and k not in jf]
        ok(not bad, f"{name}: {index} flat value of each of {len(jf)} functions equals jeprof's",
           "; ".join(bad[:5]))

done()
