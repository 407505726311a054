#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Files a dump names cannot hang symbolize, leave its --sysroot, or make it
# inflate a bomb (issue 12, items 7-9): a FIFO as the module, as its
# build-id debug file and as its debuglink target; '..' and symbolic links
# climbing out of the root; an ELF whose compressed .debug_info holds
# 3 GiB or whose .gnu_debugdata holds 512 MiB of xz; and the pprof bombs of fixtures/bad/make-bombs.py through
# from-pprof. Each run has a generous cap (a hang is a failure, never a
# wait for ever); memory is each child's own peak RSS (wait4).
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAP = int(os.environ.get("FK_HANG_CAP", "120"))  # seconds; only a hang reaches it
RSS_MAX = 256 * 1024                        # KiB
# ASan's shadow memory and redzones add about 60 % to a peak; the bound of
# the issue is for the real build, so a sanitized one gets twice it.
_ldd = subprocess.run(["ldd", shutil.which("from-pprof") or "from-pprof"],
                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
if b"libasan" in _ldd:
    RSS_MAX *= 2
n = failed = 0


def run(argv):
    """(status, stdout, stderr, peak RSS KiB, seconds); status None on a hang."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, cwd=TOP, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        deadline = t0 + CAP
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return None, b"", b"", 0, CAP
            time.sleep(0.05)
        out.seek(0)
        err.seek(0)
        st = os.waitstatus_to_exitcode(status)
        return st, out.read(), err.read().decode(errors="replace"), ru.ru_maxrss, time.monotonic() - t0


def check(name, ok, why=""):
    global n, failed
    n += 1
    if ok:
        print("ok %d - %s" % (n, name))
    else:
        failed += 1
        print("not ok %d - %s: %s" % (n, name, why))


def dump_with(path, dst, old="/opt/fk/bin/fk-basic", src="fixtures/dumps/fk-basic.prof"):
    text = open(os.path.join(TOP, src)).read()
    open(dst, "w").write(text.replace(old, path))


def sym_case(name, argv, want_warn, want_names, fn=b"fk_alloc_small"):
    st, out, err, rss, secs = run(["symbolize"] + argv)
    if st is None:
        return check(name, False, "hung for %d s" % CAP)
    named = fn in out
    why = []
    if st != 0:
        why.append("status %s" % st)
    if want_warn and want_warn not in err:
        why.append("no warning %r in %r" % (want_warn, err[-300:]))
    if named != want_names:
        why.append("names %s" % ("resolved" if named else "not resolved"))
    if "Sanitizer" in err or "runtime error" in err:
        why.append("sanitizer report")
    if want_warn and err.count(want_warn) != 1:
        why.append("warning said %d times" % err.count(want_warn))
    check(name, not why, "; ".join(why))


def sysroot(name):
    """A new sysroot NAME under tmp, with its /opt/fk/bin."""
    root = os.path.join(tmp, name)
    os.makedirs(root + "/opt/fk/bin")
    return root


tmp = tempfile.mkdtemp()
try:
    bin_basic = os.path.join(TOP, "fixtures/sysroot/opt/fk/bin/fk-basic")
    bin_stripped = os.path.join(TOP, "fixtures/sysroot/opt/fk/bin/fk-stripped")

    # 7: FIFOs.
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    d = os.path.join(tmp, "fifo.prof")
    dump_with(fifo, d)
    sym_case("a FIFO named by the maps (no sysroot) is refused, not waited on",
             [d], fifo + ": not a regular file", False)
    d = os.path.join(tmp, "dev.prof")
    dump_with("/dev/null", d)
    sym_case("a device named by the maps is refused before it is opened",
             [d], "/dev/null: not a regular file", False)
    root = sysroot("fiforoot")
    os.mkfifo(root + "/opt/fk/bin/fk-basic")
    sym_case("a FIFO under --sysroot is refused, not waited on",
             ["--sysroot", root, "fixtures/dumps/fk-basic.prof"],
             "/opt/fk/bin/fk-basic: not a regular file", False)
    root = sysroot("dbgroot")
    shutil.copy(bin_stripped, root + "/opt/fk/bin/fk-stripped")
    os.makedirs(root + "/usr/lib/debug/.build-id/53")
    os.mkfifo(root + "/usr/lib/debug/.build-id/53/51cf1049250f31641101140300abf05a150996.debug")
    os.mkfifo(root + "/opt/fk/bin/fk-stripped.debug")
    os.makedirs(root + "/opt/fk/bin/.debug")
    shutil.copy(os.path.join(TOP, "fixtures/debug/fk-stripped.debug"),
                root + "/opt/fk/bin/.debug/fk-stripped.debug")
    sym_case("FIFOs as build-id debug file and debuglink target are refused, "
             "then the real debug file is found",
             ["--sysroot", root, "fixtures/dumps/fk-stripped.prof"],
             "debug file %s/usr/lib/debug/.build-id/53/51cf1049250f31641101140300abf05a150996"
             ".debug: not a regular file" % root, True, b"fk_hidden_words")

    root = sysroot("dworoot")
    shutil.copy(os.path.join(TOP, "fixtures/sysroot/opt/fk/bin/fk-split"), root + "/opt/fk/bin/")
    os.mkfifo(root + "/opt/fk/bin/fk-split.dwo")
    sym_case("a FIFO as a split DWARF .dwo file is not opened (libdw would block)",
             ["--sysroot", root, "fixtures/dumps/fk-split.prof"],
             "fk-split.dwo is not a regular file", True, b"main")

    # 9: --sysroot cannot be escaped.
    root = sysroot("emptyroot")
    climb = "/.." * 40 + bin_basic
    d = os.path.join(tmp, "climb.prof")
    dump_with(climb, d)
    sym_case("'..' climbing out of the sysroot is refused and said once",
             ["--sysroot", root, d], "'..' in the path climbs out of the sysroot", False)
    # The file is opened (the path is read as given) and then found not to
    # be the file the dump mapped: another inode of the same device.
    sym_case("without --sysroot the same path is opened, and is not the file mapped",
             [d], "not the file mapped (inode 1132323 in the dump", False)
    rel = os.path.relpath(bin_basic, root + "/opt/fk/bin")
    os.symlink(rel, root + "/opt/fk/bin/fk-basic")
    sym_case("a relative symbolic link leading out of the sysroot is refused",
             ["--sysroot", root, "fixtures/dumps/fk-basic.prof"],
             "symbolic link '/opt/fk/bin/fk-basic' leads out of the sysroot", False)
    root = sysroot("absroot")
    os.symlink(bin_basic, root + "/opt/fk/bin/fk-basic")
    sym_case("an absolute symbolic link is resolved inside the sysroot, not on the host",
             ["--sysroot", root, "fixtures/dumps/fk-basic.prof"],
             "/opt/fk/bin/fk-basic: no such file or directory", False)
    os.makedirs(root + "/real")
    shutil.copy(bin_basic, root + "/real/fk-basic")
    os.unlink(root + "/opt/fk/bin/fk-basic")
    os.symlink("/real/fk-basic", root + "/opt/fk/bin/fk-basic")
    os.symlink("../../real/.././real", root + "/opt/fk/r")
    d = os.path.join(tmp, "inside.prof")
    dump_with("/opt/fk/r/../opt/fk/./bin//fk-basic", d)
    sym_case("links and '..' that stay inside the sysroot are followed",
             ["--sysroot", root, d], None, True)

    # 8: bombs.
    bombs = os.path.join(tmp, "bombs")
    os.makedirs(bombs)
    subprocess.run([sys.executable, os.path.join(TOP, "fixtures/bad/make-bombs.py"), bombs],
                   check=True)
    for bomb, prog, what in (("elf-bomb", "fk-basic", "compressed .debug_info claims 3 GiB"),
                             ("xz-bomb", "fk-stripped", ".gnu_debugdata (xz) inflates to 512 MiB")):
        root = sysroot(bomb + "-root")
        shutil.copy(os.path.join(bombs, bomb), root + "/opt/fk/bin/" + prog)
        st, out, err, rss, secs = run(["symbolize", "--sysroot", root,
                                       "fixtures/dumps/%s.prof" % prog])
        check("an ELF whose %s is refused with a warning (%.2f s, %d KiB)" % (what, secs, rss),
              st == 0 and "/opt/fk/bin/%s: compressed sections inflate to more than" % prog in err
              and rss < RSS_MAX and out.startswith(b"--- symbol\n"),
              "status %s, %d KiB, %r" % (st, rss, err[-300:]))
    for name, msg in (("gzip-bomb", "gzip data inflates to more than"),
                      ("string-bomb", "gzip data inflates to more than"),
                      ("folded-bomb", "folded output larger than")):
        st, out, err, rss, secs = run(["from-pprof", os.path.join(bombs, name + ".pb.gz")])
        lines = err.splitlines()
        check("from-pprof rejects %s in one line, nothing on stdout (%.2f s, %d KiB)"
              % (name, secs, rss),
              st == 1 and not out and len(lines) == 1 and msg in lines[0] and rss < RSS_MAX,
              "status %s, %d bytes out, %d KiB, %r" % (st, len(out), rss, err[-300:]))
finally:
    shutil.rmtree(tmp)
sys.exit(1 if failed else 0)
