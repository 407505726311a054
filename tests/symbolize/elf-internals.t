#!/bin/sh
# SPDX-License-Identifier: MIT
# symbolize gives byte-identical output (stdout, stderr, exit status) on
# every fixture dump whether it inflates compressed debug sections into
# libelf's own data (the elfutils 0.188 path) or leaves that to libelf and
# libdw (FLAMEKIT_NO_ELF_INTERNALS=1). The fixture dumps run with
# --sysroot fixtures/sysroot; those of programs on this machine (gcc's cc1,
# python3.11, xmllint, whose libc has compressed DWARF in libc6-dbg) also
# without it. A crash (status >= 126) or an empty profile fails.
# With FK_B_OTHER=DIR, the other side is DIR/symbolize, a build made with
# CFLAGS=-DFK_ELF_INTERNALS=0 (the path of other elfutils versions, which
# compiles the internals out; .ci/run builds and runs it).
. "$(dirname "$0")/../lib/tap.sh"
other=${FK_B_OTHER:-$B}
case "$other" in /*) ;; *) other=$top/$other ;; esac
[ -x "$other/symbolize" ] || { echo "not ok 1 - no $other/symbolize"; exit 1; }

# check NAME ARGS...: one TAP line.
check() {
	name=$1; shift
	n=$((n + 1))
	"$B/symbolize" "$@" >"$tmp/a.out" 2>"$tmp/a.err"; a=$?
	FLAMEKIT_NO_ELF_INTERNALS=1 "$other/symbolize" "$@" >"$tmp/b.out" 2>"$tmp/b.err"; b=$?
	why=
	if [ "$a" -ge 126 ] || [ "$b" -ge 126 ]; then
		why="crashed ($a, $b)"
	elif [ "$a" != "$b" ]; then
		why="exit status $a with, $b without"
	elif [ "$a" = 0 ] && ! grep -q '^--- heap' "$tmp/a.out"; then
		why="no profile on stdout"
	elif ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
		why="stdout differs: $(diff "$tmp/a.out" "$tmp/b.out" | sed -n 2p)"
	elif ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
		why="stderr differs: $(diff "$tmp/a.err" "$tmp/b.err" | sed -n 2p)"
	fi
	if [ -n "$why" ]; then
		echo "not ok $n - $name: $why"
		fail=1
	else
		echo "ok $n - $name: identical with and without libelf internals"
	fi
}

for f in fixtures/dumps/*.prof; do
	check "$(basename "$f") --sysroot" --sysroot fixtures/sysroot "$f"
done
for f in cc1 python3.11 xmllint; do
	check "$f.prof" "fixtures/dumps/$f.prof"
done
echo "1..$n"
[ "$fail" = 0 ]
