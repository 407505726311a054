#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A module that cannot be read never stops symbolize: the fixture program
# and the stripped program's debug file, each damaged in 40 deterministic
# ways (random bytes anywhere, in the headers, or in the sections symbolize
# looks units up in: .debug_aranges, and .debug_info), must still give exit 0,
# the profile on stdout and no sanitizer report (under SANITIZE builds).
import os
import random
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sections(path, names):
    """(offset, size) of each named section of the ELF file at path."""
    out = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    spans = []
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 5 and f[1] in names:
            spans.append((int(f[4], 16), int(f[5], 16)))
    return spans

n = failed = 0
tmp = tempfile.mkdtemp()
try:
    cases = [
        ("fk-inline", "fixtures/sysroot/opt/fk/bin/fk-inline", "root/opt/fk/bin/fk-inline",
         ["--sysroot", os.path.join(tmp, "root")]),
        ("fk-stripped.debug", "fixtures/debug/fk-stripped.debug", "dbg/fk-stripped.debug",
         ["--sysroot", "fixtures/sysroot", "--debug-dir", os.path.join(tmp, "dbg")]),
    ]
    dumps = {"fk-inline": "fixtures/dumps/fk-inline.prof",
             "fk-stripped.debug": "fixtures/dumps/fk-stripped.prof"}
    for name, src, dst, opts in cases:
        data = open(os.path.join(TOP, src), "rb").read()
        spans = sections(os.path.join(TOP, src), (".debug_aranges", ".debug_info"))
        dst = os.path.join(tmp, dst)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        bad = []
        for i in range(40):
            rnd = random.Random(i)
            b = bytearray(data)
            where = rnd.random()
            for _ in range(rnd.choice([1, 4, 16, 64])):
                if where < 0.35 or not spans:
                    b[rnd.randrange(len(b))] = rnd.randrange(256)
                elif where < 0.6:
                    b[rnd.randrange(min(len(b), 4096))] = rnd.randrange(256)
                else:
                    off, size = spans[rnd.randrange(len(spans))]
                    b[off + rnd.randrange(max(size, 1))] = rnd.randrange(256)
            open(dst, "wb").write(b)
            r = subprocess.run(["symbolize"] + opts + [dumps[name]], cwd=TOP,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            err = r.stderr.decode(errors="replace")
            if (r.returncode != 0 or not r.stdout.startswith(b"--- symbol\n")
                    or "runtime error" in err or "Sanitizer" in err):
                bad.append("%d: status %d %s" % (i, r.returncode, err.strip()[-160:]))
        n += 1
        if bad:
            failed += 1
            print("not ok %d - %s damaged 40 ways: %s" % (n, name, bad[0]))
        else:
            print("ok %d - %s damaged 40 ways: symbolized every time" % (n, name))
finally:
    shutil.rmtree(tmp)
sys.exit(1 if failed else 0)
