#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check with the real peer, jeprof (libjemalloc-dev), on every dump in
# fixtures/dumps:
#  1. the unbiased totals that `jeprof-raw --check --stats` prints (objects,
#     bytes; alloc_objects, alloc_bytes when the dump has accumulated values)
#     equal the `Total:` of `jeprof --text` within 0.1 % (or 1, since jeprof
#     truncates its totals to integers with %d);
#  2. `jeprof --text --show_bytes` on what `jeprof-raw DUMP` writes equals
#     `jeprof --text --show_bytes` on the original dump, line for line.
#  3. so does `jeprof --collapsed` (every stack with its value, sorted).
# jeprof reads each dump wrapped as a symbolized profile with no symbols
# ("--- symbol", "binary=…", "---", "--- heap", then the dump unchanged):
# it then runs no nm/objdump/addr2line (70 processes a dump otherwise, 8 s on
# cc1.prof) and needs no program installed; names never change totals, and
# bare addresses compare stacks more strictly than names do.
. "$(dirname "$0")/../lib/tap.sh"
raw=$B/jeprof-raw

# jp FILE ARGS...: jeprof ARGS on FILE wrapped as a symbolized profile.
jp() {
	f=$1; shift
	{ printf -- '--- symbol\nbinary=fixture\n---\n--- heap\n'; cat "$f"; } >"$tmp/wrapped"
	jeprof "$@" "$tmp/wrapped" 2>/dev/null
}

command -v jeprof >/dev/null || { echo "not ok 1 - jeprof (libjemalloc-dev) is not installed"; exit 1; }
[ -x "$raw" ] || { echo "not ok 1 - $raw is not built"; exit 1; }

# near A B: A and B (decimal numbers) agree within 0.1 %, or within 1.
near() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		m = (b < 0 ? -b : b) * 0.001; if (m < 1) m = 1
		exit !(d <= m) }'
}

# stat FILE KEY: the value of "KEY: N" in a --stats output.
stat() { sed -n "s/^$2: *//p" "$1" | head -n 1; }

# total OUT: the number of jeprof's "Total: N unit" line.
total() { sed -n 's/^Total: *\([0-9.]*\).*/\1/p' "$1" | head -n 1; }

for d in fixtures/dumps/*.prof; do
	name=$(basename "$d" .prof)
	if ! "$raw" --check --stats "$d" 2>"$tmp/stats"; then
		nok "$name: jeprof-raw --check --stats failed: $(head -n 1 "$tmp/stats")"
		continue
	fi
	jp "$d" --text --show_bytes >"$tmp/space"
	jp "$d" --text --inuse_objects >"$tmp/objects"
	for pair in "bytes space" "objects objects"; do
		set -- $pair
		ours=$(stat "$tmp/stats" "$1"); theirs=$(total "$tmp/$2")
		if [ -n "$ours" ] && [ -n "$theirs" ] && near "$ours" "$theirs"; then
			ok "$name: in-use $1 $ours = jeprof Total $theirs"
		else
			nok "$name: in-use $1 '$ours' differs from jeprof Total '$theirs'"
		fi
	done
	# Accumulated values (prof_accum:true), when the dump has any.
	if [ -n "$(stat "$tmp/stats" alloc_bytes)" ]; then
		jp "$d" --text --alloc_space --show_bytes >"$tmp/aspace"
		jp "$d" --text --alloc_objects >"$tmp/aobjects"
		for pair in "alloc_bytes aspace" "alloc_objects aobjects"; do
			set -- $pair
			ours=$(stat "$tmp/stats" "$1"); theirs=$(total "$tmp/$2")
			if [ -n "$theirs" ] && near "$ours" "$theirs"; then
				ok "$name: $1 $ours = jeprof Total $theirs"
			else
				nok "$name: $1 '$ours' differs from jeprof Total '$theirs'"
			fi
		done
	fi

	# What jeprof-raw writes reads the same in jeprof as the original.
	if ! "$raw" "$d" >"$tmp/rewritten.prof" 2>"$tmp/err"; then
		nok "$name: jeprof-raw failed: $(head -n 1 "$tmp/err")"
		continue
	fi
	jp "$tmp/rewritten.prof" --text --show_bytes >"$tmp/space2"
	if [ -s "$tmp/space" ] && cmp -s "$tmp/space" "$tmp/space2"; then
		ok "$name: jeprof --text reads jeprof-raw's output as the original"
	else
		nok "$name: jeprof --text differs on jeprof-raw's output: $(diff "$tmp/space" "$tmp/space2" | sed -n 2p)"
	fi
	jp "$d" --collapsed | LC_ALL=C sort >"$tmp/coll"
	jp "$tmp/rewritten.prof" --collapsed | LC_ALL=C sort >"$tmp/coll2"
	if [ -s "$tmp/coll" ] && cmp -s "$tmp/coll" "$tmp/coll2"; then
		ok "$name: jeprof --collapsed reads jeprof-raw's output as the original"
	else
		nok "$name: jeprof --collapsed differs on jeprof-raw's output: $(diff "$tmp/coll" "$tmp/coll2" | sed -n 2p | cut -c1-200)"
	fi
done
[ "$n" -gt 0 ] || { echo "not ok 1 - no dumps in fixtures/dumps"; exit 1; }
