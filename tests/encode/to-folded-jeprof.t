#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# to-folded against jeprof's own reports on the original dumps (made with the
# binaries at hand, committed in fixtures/ref/): the total of the folded
# stacks, raw or symbolized, equals the total of `jeprof --collapsed`
# (bytes) and of `jeprof --text --inuse_objects` (objects) within 0.1 %.
import glob
import gzip
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from enclib import ok, done, run, tmp, symbolize, close  # noqa: E402


def folded_total(text):
    return sum(int(ln.rsplit(" ", 1)[1]) for ln in text.splitlines() if ln.strip())


n = 0
for dump in sorted(glob.glob("fixtures/dumps/*.prof")):
    name = os.path.basename(dump)[:-5]
    ref = f"fixtures/ref/{name}.collapsed"
    if os.path.exists(ref):
        jbytes = folded_total(open(ref, encoding="latin-1").read())
    elif os.path.exists(ref + ".gz"):
        jbytes = folded_total(gzip.open(ref + ".gz").read().decode("latin-1"))
    else:
        continue
    m = re.match(r"Total: (\d+) objects", open(f"fixtures/ref/{name}.objects.text").readline())
    jobjs = int(m.group(1)) if m else None
    n += 1
    try:
        sym = symbolize(dump, tmp(name + ".sym"))
    except RuntimeError as e:
        ok(False, f"{name}: symbolize", str(e))
        continue
    for kind, src in (("raw", dump), ("symbolized", sym)):
        st, out, err = run(["to-folded", src])
        t = folded_total(out) if st == 0 else None
        ok(t is not None and close(t, jbytes, absolute=0),
           f"{name}: {kind} to-folded bytes total {t} equals jeprof --collapsed's {jbytes}", err.strip())
        st, out, err = run(["to-folded", "--value", "objects", src])
        t = folded_total(out) if st == 0 else None
        ok(t is not None and jobjs is not None and close(t, jobjs, absolute=1),
           f"{name}: {kind} to-folded objects total {t} equals jeprof's {jobjs}", err.strip())
ok(n >= 5, f"{n} dumps with jeprof references")
done()
