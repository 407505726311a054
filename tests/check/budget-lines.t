#!/bin/sh
# SPDX-License-Identifier: MIT
# heap-check on a budget of thousands of lines and deep stacks (the input
# of bench/heapcheck.sh, smaller): every stack still counts toward the
# first line whose pattern matches one of its frames, now that each
# distinct frame name is matched once and literal patterns are looked up
# by hash. budget-lines.expect holds what heap-check of commit ea00ffd,
# which tried every line against every frame of every stack, reported for
# this script's input: each line that took stacks, its bytes and stacks.
# Not timed; bench/heapcheck.sh measures the speed.
. "$(dirname "$0")/../lib/tap.sh"
# figures BUDGET: heap-check's report on the profile as one "LINE BYTES
# STACKS" line for each budget line that took stacks, then how many took
# none; the exit status in $st.
figures() {
	heap-check --budget "$1" "$tmp/g/profile.folded" >"$tmp/report" 2>"$tmp/err"; st=$?
	sed -n "s/^[a-z]* *budget line \([0-9]*\) .*(\([0-9]*\) bytes) .*, \([0-9]*\) stacks*$/\1 \2 \3/p" \
		"$tmp/report"
	echo "$(grep -c ', no stack matched$' "$tmp/report") lines took no stack"
}
python3 bench/heapcheck-gen "$tmp/g" 400 128 2000 30 5 || { echo "not ok 1 - bench/heapcheck-gen"; exit 1; }
g=$tmp/g/profile.folded
# Ahead of the generated lines, three names that only a few stacks have:
# one with every character quoted, one ending in a lone backslash (which
# never matches), then the same unquoted (a repeated text, not a repeated
# pattern), one with an unclosed '[', which fnmatch takes as itself.
tr ';' '\n' <"$g" | sed 's/ [0-9]*$//' | sort | uniq -c | awk '$1 <= 2 { print $2 }' >"$tmp/rare"
n1=$(sed -n 1p "$tmp/rare") n2=$(sed -n 2p "$tmp/rare") n3=$(sed -n 3p "$tmp/rare")
{
	printf '%s 1KiB\n' "$(printf '%s' "$n1" | sed 's/./\\&/g')"
	printf '%s\\ 1KiB\n%s 2KiB\n' "$n2" "$n2"
	printf '%s[ 1\n' "$n3"
	cat "$tmp/g/budget"
} >"$tmp/budget"

figures "$tmp/budget" >"$tmp/got"
t "a 2004-line budget on 400 stacks of 128 frames: exit 1 (lines over)" [ "$st" = 1 ]
t "nothing on stderr" [ ! -s "$tmp/err" ]
t "each stack counts toward the line it did before" diff tests/check/budget-lines.expect "$tmp/got"
grep -q "^1 " "$tmp/got" && ! grep -q "^2 " "$tmp/got" && grep -q "^3 " "$tmp/got"
t "the quoted name took its stacks, the one with a lone backslash none" [ $? = 0 ]

# The literal lines written as globs (their first character as a set)
# take the path every glob takes: the same figures.
awk '/^#/ || $0 ~ /[*?[\\]/ { print; next } { print "[" substr($0, 1, 1) "]" substr($0, 2) }' \
	"$tmp/budget" >"$tmp/globs"
t "the literal lines rewritten as globs" [ "$(grep -c '^\[' "$tmp/globs")" -gt 1000 ]
figures "$tmp/globs" >"$tmp/got2"
t "literal lines found by hash agree with fnmatch" diff "$tmp/got" "$tmp/got2"
exit 0
