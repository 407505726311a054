# SPDX-License-Identifier: MIT
"""Helpers shared by the tests/encode/*.t scripts: TAP output, running the
tools from $B, parsing jemalloc dumps and the text reports of jeprof and
go tool pprof."""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B", os.path.join(TOP, "build"))
os.chdir(TOP)
os.environ["PATH"] = B + os.pathsep + os.environ.get("PATH", "")
os.environ["LC_ALL"] = "C"
os.environ["TZ"] = "UTC"
TMP = tempfile.mkdtemp(prefix="fk-encode-t.")

_n = 0
_failed = 0


def ok(cond, what, why=""):
    global _n, _failed
    _n += 1
    if cond:
        print(f"ok {_n} - {what}")
    else:
        _failed += 1
        print(f"not ok {_n} - {what}" + (f": {why}" if why else ""))
    sys.stdout.flush()
    return cond


def done():
    subprocess.run(["rm", "-rf", TMP])
    print(f"1..{_n}")
    sys.exit(1 if _failed else 0)


def run(cmd, stdin=None, binary=False):
    """Runs cmd (a list) and returns (status, stdout, stderr)."""
    r = subprocess.run(cmd, input=stdin, capture_output=True)
    out = r.stdout if binary else r.stdout.decode("utf-8", "replace")
    return r.returncode, out, r.stderr.decode("utf-8", "replace")


def tmp(name):
    return os.path.join(TMP, name)


def symbolize(dump, out):
    st, data, err = run(["symbolize", "--sysroot", "fixtures/sysroot", dump], binary=True)
    if st != 0:
        raise RuntimeError(f"symbolize {dump}: {err.strip()}")
    with open(out, "wb") as f:
        f.write(data)
    return out


def to_pprof(inp, out, *opts):
    st, _, err = run(["to-pprof", *opts, "-o", out, inp])
    if st != 0:
        raise RuntimeError(f"to-pprof {inp}: {err.strip()}")
    return out


def read_dump(path):
    """The stacks (address tuples, leaf first, with their t*: counts), the
    period and the maps lines of a jemalloc dump (v2 or legacy form), or of
    the dump inside a symbolized profile."""
    text = open(path, encoding="latin-1").read()
    if "\n--- heap\n" in text:
        text = text.split("\n--- heap\n", 1)[1]
    lines = text.split("\n")
    period = 0
    m = re.search(r"heap_v2/(\d+)", lines[0])
    if m:
        period = int(m.group(1))
    stacks = []
    maps = []
    in_maps = False
    cur = None
    for ln in lines[1:]:
        if in_maps:
            if ln.strip():
                maps.append(ln)
            continue
        if ln.startswith("MAPPED_LIBRARIES:"):
            in_maps = True
            continue
        if ln.startswith("@"):
            cur = tuple(int(a, 16) for a in ln[1:].split())
            continue
        lm = re.match(r"\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]\s*@(.*)$", ln)
        if lm:     # legacy: counts and stack on one line
            addrs = tuple(int(a, 16) for a in lm.group(5).split())
            stacks.append((addrs, [int(lm.group(i)) for i in range(1, 5)]))
            continue
        lm = re.match(r"\s*t\*:\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]", ln)
        if lm and cur is not None:
            stacks.append((cur, [int(lm.group(i)) for i in range(1, 5)]))
            cur = None
    return stacks, period, maps


def parse_maps(maps):
    out = []
    for ln in maps:
        f = ln.split(None, 5)
        if len(f) < 5:
            continue
        start, limit = (int(x, 16) for x in f[0].split("-"))
        path = f[5].strip() if len(f) > 5 else ""
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        out.append((start, limit, int(f[2], 16), f[1], path))
    return out


def pprof_raw(pb, *opts):
    """go tool pprof -raw: (status, stderr, samples, locations, mappings)
    with samples as (values, location ids), locations as id -> (address,
    mapping id) and mappings as id -> (start, limit, offset, file)."""
    st, out, err = run(["go", "tool", "pprof", *opts, "-raw", pb])
    samples, locs, maps = [], {}, {}
    section = None
    for ln in out.split("\n"):
        if ln.startswith("Samples:"):
            section = "s"
            continue
        if ln.startswith("Locations"):
            section = "l"
            continue
        if ln.startswith("Mappings"):
            section = "m"
            continue
        if section == "s":
            m = re.match(r"^\s+(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$", ln)
            if m:
                samples.append(([int(x) for x in m.group(1).split()],
                                [int(x) for x in m.group(2).split()]))
        elif section == "l":
            m = re.match(r"^\s+(\d+): 0x([0-9a-f]+) M=(\d+)", ln)
            if m:
                locs[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3)))
        elif section == "m":
            m = re.match(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (.*)$", ln)
            if m:
                rest = m.group(5)
                maps[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16),
                                         int(m.group(4), 16), rest)
    return st, err, out, samples, locs, maps


def top_table(out, total_re, row_re):
    """A -top or --text table: (the total, the first group of total_re;
    flat by function name, row_re's groups: flat value and name, " (inline)"
    dropped)."""
    total = None
    flat = {}
    for ln in out.split("\n"):
        m = re.match(total_re, ln)
        if m:
            total = float(m.group(1))
            continue
        m = re.match(row_re, ln)
        if m:
            name = m.group(2)
            if name.endswith(" (inline)"):
                name = name[: -len(" (inline)")]
            flat[name] = flat.get(name, 0.0) + float(m.group(1))
    return total, flat


def pprof_top(pb, index, unit=None):
    """go tool pprof -top with every node: (status, stderr, total, flat by
    function name)."""
    cmd = ["go", "tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0",
           "-edgefraction=0", "-sample_index=" + index]
    if unit:
        cmd.append("-unit=" + unit)
    st, out, err = run(cmd + [pb])
    total, flat = top_table(
        out, r"Showing nodes accounting for -?[\d.]+\w*, [\d.]+% of (-?[\d.]+)\w* total",
        r"^\s*(-?[\d.]+)\w*\s+-?[\d.]+%\s+-?[\d.]+%\s+-?[\d.]+\w*\s+-?[\d.]+%\s+(.*)$")
    return st, err, total, flat


def jeprof_text(path, mode):
    """jeprof --text --MODE --show_bytes on a symbolized profile: (total,
    flat by function)."""
    st, out, err = run(["jeprof", "--text", "--" + mode, "--show_bytes", path])
    return top_table(out, r"Total: (-?[\d.]+)",
                     r"^\s*(-?[\d.]+)\s+-?[\d.]+%\s+-?[\d.]+%\s+-?[\d.]+\s+-?[\d.]+%\s+(.*)$")


def close(a, b, rel=0.001, absolute=1.0):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), absolute)
