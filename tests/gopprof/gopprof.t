#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# from-pprof on google/pprof's own test profiles (tests/gopprof, copied from
# google/pprof; see its README.md): for every file go tool pprof reads, run
# here and now, from-pprof lists the same sample types and its folded total
# of go's default sample type (the last one: these profiles name none)
# equals the sum of that column in `go tool pprof -raw`; a file go refuses,
# from-pprof refuses with one line, exit 1 and no output.
import glob
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B", os.path.join(TOP, "build"))
if not os.path.isabs(B):
    B = os.path.join(TOP, B)
os.chdir(TOP)
env = dict(os.environ, LC_ALL="C", HOME=os.environ.get("TMPDIR", "/tmp"),
           PPROF_BINARY_PATH="/nonexistent", PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"))
n = failed = 0


def ok(cond, what, why=""):
    global n, failed
    n += 1
    failed += 0 if cond else 1
    print(("ok" if cond else "not ok") + f" {n} - {what}" + ("" if cond or not why else f": {why}"))
    sys.stdout.flush()
    return cond


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, env=env)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def go_raw(path):
    """(types, totals) from `go tool pprof -raw`, or None when go fails."""
    st, out, err = run(["go", "tool", "pprof", "-raw", path])
    if st != 0:
        return None, err.strip().splitlines()[:1]
    lines = out.splitlines()
    i = lines.index("Samples:")
    types = lines[i + 1].split()
    totals = [0] * len(types)
    for ln in lines[i + 2:]:
        m = re.match(r"^\s+(-?\d+(?:\s+-?\d+)*):", ln)
        if not m:
            if not ln.startswith(" "):
                break
            continue
        vals = [int(v) for v in m.group(1).split()]
        for k, v in enumerate(vals):
            totals[k] += v
    return types, totals


files = sorted(glob.glob("tests/gopprof/testdata/*") + glob.glob("tests/gopprof/corpus/*"))
files = [f for f in files if not f.endswith(".string")]
read = 0
for f in files:
    name = f[len("tests/gopprof/"):]
    types, totals = go_raw(f)
    st, out, err = run([os.path.join(B, "from-pprof"), f])
    if types is None:
        ok(st == 1 and out == "" and len(err.splitlines()) == 1,
           f"{name}: go tool pprof refuses it ({totals[0] if totals else ''}), so does from-pprof "
           f"with one line and no output", f"status {st}, {err!r}")
        continue
    read += 1
    if not ok(st == 0, f"{name}: from-pprof reads it", err.strip()):
        continue
    lst, lout, lerr = run([os.path.join(B, "from-pprof"), "-l", f])
    ok(lout.split() == types, f"{name}: sample types {' '.join(types)} as go's", lout.strip())
    total = sum(int(ln.rsplit(" ", 1)[1]) for ln in out.splitlines())
    ok(total == totals[-1], f"{name}: {types[-1]} total {total} equals go tool pprof's {totals[-1]}")
    # Every other sample type too, one column each.
    cst, cout, cerr = run([os.path.join(B, "from-pprof"), "-c", f])
    ctot = [0] * len(types)
    for ln in cout.splitlines()[1:]:
        for k, v in enumerate(ln.rsplit(" ", len(types))[1:]):
            ctot[k] += int(v)
    ok(cst == 0 and ctot == totals, f"{name}: every sample type's total equals go's", f"{ctot} vs {totals}")
ok(read >= 18, f"from-pprof read the {read} profiles go tool pprof reads")
print(f"1..{n}")
sys.exit(1 if failed else 0)
