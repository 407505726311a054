#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Accuracy of symbolize on real dumps of programs nobody here wrote, checked
# against an independent reading of the same files with binutils (readelf,
# c++filt): for every address that lies inside a sized function symbol of
# its file (or of the file's /usr/lib/debug/.build-id debug file), the
# outermost function symbolize names must be that symbol (any alias at the
# same start, after removing version and clone suffixes), for at least 99 %
# of them; and an address in no symbol must never get a plain name.
# Besides the committed dumps, two are taken when the test runs (python3
# and clang, with this machine's versions of their files).
# FK_ACCURACY_DUMPS="a.prof b.prof" checks other dumps taken on this machine.
import bisect
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMPS = ["python3.11", "xmllint", "cc1"]
CLONE = re.compile(r"\.(part|isra|constprop|cold|localalias|lto_priv|clone|llvm|specialized)(\.|$)")
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))


def norm(name):
    name = name.split("@", 1)[0] if not name.startswith("@") else name
    m = CLONE.search(name, 1)
    return name[:m.start()] if m else name


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          check=False, universal_newlines=True)


class Module:
    def __init__(self, path):
        self.loads = []
        self.syms = []          # (lo, hi, name)
        out = run(["readelf", "-lW", path]).stdout
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
                flags = "".join(f[6:-1])
                self.loads.append((off, vaddr, filesz, "E" in flags))
        files = [path]
        note = run(["readelf", "-n", path]).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", note)
        if m:
            dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1)[:2], m.group(1)[2:])
            if os.path.exists(dbg):
                files.append(dbg)
        for f in files:
            for line in run(["readelf", "-sW", f]).stdout.splitlines():
                p = line.split()
                if len(p) < 8 or p[3] not in ("FUNC", "IFUNC") or p[6] in ("UND", "ABS"):
                    continue
                size = int(p[2], 0) if not p[2].startswith("0x") else int(p[2], 16)
                if size == 0:
                    continue
                lo = int(p[1], 16)
                self.syms.append((lo, lo + size, p[7]))
        self.syms.sort()
        self.los = [x[0] for x in self.syms]
        self.bystart = {}
        for lo, hi, name in self.syms:
            self.bystart.setdefault(lo, set()).add(name)

    def vaddr(self, off):
        for poff, pv, sz, x in self.loads:
            if x and poff <= off < poff + sz:
                return off - poff + pv
        return None

    def containing(self, v):
        # The innermost symbol holding v: the latest start, then the
        # narrowest; symbols nest rarely and never deeply.
        best = None
        i = bisect.bisect_right(self.los, v)
        for lo, hi, name in reversed(self.syms[max(0, i - 2000):i]):
            if lo <= v < hi and (best is None or lo > best[0] or
                                 (lo == best[0] and hi < best[1])):
                best = (lo, hi)
        return best


def demangle(names):
    names = sorted(names)
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n",
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    return dict(zip(names, out.splitlines()))


def check(path):
    dump = os.path.basename(path)
    r = run(["symbolize", "--keep-allocator-frames", path])
    ok(r.returncode == 0, "%s: symbolize exits 0 (%s)" % (dump, r.stderr.strip()[:200]))
    if r.returncode != 0:
        return
    syms = {}
    maps = []
    inmaps = False
    for line in r.stdout.splitlines():
        if line.startswith("=sym "):
            f = line[5:].split("\t")
            syms[int(f[0], 16)] = (f[1], f[2], f[3] or f[2])
        elif line == "MAPPED_LIBRARIES:":
            inmaps = True
        elif inmaps:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s*(.*)$", line)
            if m and m.group(5).startswith("/"):
                p = m.group(5)
                if p.endswith(" (deleted)"):
                    continue
                maps.append((int(m.group(1), 16), int(m.group(2), 16),
                             int(m.group(4), 16), p))
    mods = {}
    inside = right = nosym = plain = 0
    wrong = []
    todo = []
    for key, (kind, name, sysname) in sorted(syms.items()):
        mp = next((x for x in maps if x[0] <= key < x[1]), None)
        if mp is None:
            continue
        if mp[3] not in mods:
            mods[mp[3]] = Module(mp[3]) if os.path.exists(mp[3]) else None
        mod = mods[mp[3]]
        if mod is None:
            continue
        v = mod.vaddr(key - mp[0] + mp[2])
        if v is None:
            continue
        c = mod.containing(v)
        if c is None:
            nosym += 1
            if kind != "m":
                plain += 1
                wrong.append("%s 0x%x: '%s' for an address in no symbol" %
                             (os.path.basename(mp[3]), v, name))
            continue
        inside += 1
        todo.append((mp[3], v, c, kind, name, sysname))
    allnames = set()
    for p, v, c, kind, name, sysname in todo:
        allnames |= mods[p].bystart[c[0]]
    dem = demangle(allnames)
    for p, v, c, kind, name, sysname in todo:
        want = set()
        for s in mods[p].bystart[c[0]]:
            want.add(norm(s))
            want.add(norm(dem.get(s, s)))
        if kind == "f" and (norm(name) in want or norm(sysname) in want):
            right += 1
        else:
            wrong.append("%s 0x%x: '%s', symbols say %s" %
                         (os.path.basename(p), v, name, sorted(want)[:4]))
    pct = 100.0 * right / inside if inside else 0.0
    ok(inside >= 30 and pct >= 99.0,
       "%s: %d of %d addresses inside a sized symbol named as the symbol (%.2f %%)"
       % (dump, right, inside, pct))
    ok(plain == 0, "%s: no plain name for the %d addresses in no symbol (%d given)"
       % (dump, nosym, plain))
    for w in wrong[:15]:
        print("# " + w)


def fresh_dump(tmp):
    """A dump taken now, of python3 under Debian's jemalloc, so the check
    also holds for whatever versions of the files this machine has. The
    program dumps itself (mallctl "prof.dump") while its data is live."""
    import glob
    env = dict(os.environ, PYTHONMALLOC="malloc",
               LD_PRELOAD="/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
               MALLOC_CONF="prof:true,prof_active:true,lg_prof_sample:10")
    out = tmp + "/py.heap"
    subprocess.run(["/usr/bin/python3", "-c",
                    "import ctypes, json, re, sys, xml.dom.minidom as m\n"
                    "d = [{'k': str(i) * 5, 'v': list(range(i % 40))} for i in range(20000)]\n"
                    "s = json.dumps(d); e = json.loads(s)\n"
                    "x = m.parseString('<a>' + '<b c=\"1\">x</b>' * 3000 + '</a>')\n"
                    "r = re.findall('[0-9]+', s)\n"
                    "p = ctypes.c_char_p(sys.argv[1].encode())\n"
                    "ctypes.CDLL(None).mallctl(b'prof.dump', None, None,\n"
                    "    ctypes.byref(p), ctypes.c_size_t(ctypes.sizeof(p)))\n", out],
                   env=env, stdout=subprocess.DEVNULL, check=False)
    got = glob.glob(out)
    ok(len(got) == 1, "python3: a fresh dump was taken")
    return got + clang_dump(tmp)


def clang_dump(tmp):
    """A dump of clang (scripts/install-deps installs it) checking a C file:
    most of its frames are in libclang-cpp and libLLVM-14.so.1, whose
    loader leaves a one-page PROT_NONE hole between its segments."""
    import glob
    env = dict(os.environ,
               LD_PRELOAD="/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
               MALLOC_CONF="prof:true,prof_active:true,lg_prof_sample:10,"
                           "prof_final:true,prof_prefix:" + tmp + "/clang")
    subprocess.run(["clang", "-fsyntax-only", "-D_GNU_SOURCE", "-I", TOP + "/core",
                    TOP + "/core/heapdump.c"], env=env, stdout=subprocess.DEVNULL,
                   check=False)
    got = glob.glob(tmp + "/clang.*.heap")
    ok(len(got) == 1, "clang: a fresh dump was taken")
    return got


extra = os.environ.get("FK_ACCURACY_DUMPS", "").split()
if extra:
    for d in extra:
        check(d)
else:
    import shutil
    import tempfile
    for d in DUMPS:
        check(os.path.join(TOP, "fixtures", "dumps", d + ".prof"))
    tmp = tempfile.mkdtemp()
    try:
        for d in fresh_dump(tmp):
            check(d)
    finally:
        shutil.rmtree(tmp)
sys.exit(1 if failed else 0)
