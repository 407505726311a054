#!/bin/sh
# SPDX-License-Identifier: MIT
# heap-check: every option, exit status and format. The same profile as a
# symbolized dump, pprof, folded and multi-column folded gives the same
# figures; budgets follow the first-matching-line rule; growth lists only
# sites that grew; JUnit is read by xmllint and Python's xml.etree, the
# markdown as a table; bad sizes, budgets and inputs exit 2 with one line
# naming the file (and line), and write no report.
. "$(dirname "$0")/../lib/tap.sh"
# hc ARGS...: runs heap-check, stdout in $tmp/out, stderr in $tmp/err,
# the status in $st.
hc() { heap-check "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; }
has() { grep -q -- "$1" "$tmp/out"; }
err1() {   # err1 PATTERN: exactly one line on stderr, matching PATTERN
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq -- "$1" "$tmp/err" ||
		{ echo "# stderr: $(head -c 300 "$tmp/err")"; return 1; }
}
for tool in xmllint python3; do
	command -v $tool >/dev/null || { echo "not ok 1 - $tool is needed"; exit 1; }
done

symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-basic.prof >"$tmp/s.prof" 2>/dev/null
to-pprof -o "$tmp/s.pb.gz" "$tmp/s.prof"
to-folded "$tmp/s.prof" >"$tmp/s.folded"
to-folded --columns "$tmp/s.prof" >"$tmp/s.cols"
total=6893161   # the sum of to-folded's lines

# ---- totals, in every input format ----
for f in s.prof s.pb.gz s.folded s.cols; do
	hc --max-inuse 1MiB "$tmp/$f"
	t "$f: over --max-inuse 1MiB exits 1" [ "$st" = 1 ]
	t "$f: in use $total bytes, over 1.0 MiB" has "^over  in use: 6.6 MiB ($total bytes) > 1.0 MiB"
	t "$f: the heaviest site first, with its share" \
		grep -Eq '^    2.0 MiB +30.4%  fk_alloc_big < main <' "$tmp/out"
	hc --max-inuse 7MiB "$tmp/$f"
	[ "$st" = 0 ] && has "^ok    in use: 6.6 MiB ($total bytes) <= 7.0 MiB" && [ "$(wc -l <"$tmp/out")" = 2 ]
	t "$f: within --max-inuse 7MiB exits 0, lists no site" [ $? = 0 ]
done
hc --max-inuse $total - <"$tmp/s.prof"
[ "$st" = 0 ] && has '^stdin: in use'
t "standard input; a budget equal to the total is within it" [ $? = 0 ]
hc --max-inuse $((total - 1)) "$tmp/s.prof"
t "one byte less is over" [ "$st" = 1 ]
hc --max-inuse 1MiB fixtures/dumps/fk-basic.prof
[ "$st" = 1 ] && has "($total bytes)" && has "fk-basic+0x"
t "a raw dump is read (symbolized with its maps; module+offset where files are missing)" [ $? = 0 ]
t "and the modules it could not read are told on stderr" grep -q "fk-basic.prof: /opt/fk/bin/fk-basic:" "$tmp/err"

# The ten heaviest of more sites, largest first, and how many more.
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "main;site_$i $((i * 1000))"; done >"$tmp/many.folded"
hc --max-inuse 1KiB "$tmp/many.folded"
t "over a total: ten sites listed" [ "$(grep -c '^    [0-9].*site_' "$tmp/out")" = 10 ]
[ "$(grep -o 'site_[0-9]*' "$tmp/out" | head -1)" = site_12 ] &&
	[ "$(grep -o 'site_[0-9]*' "$tmp/out" | tail -1)" = site_3 ]
t "heaviest first" [ $? = 0 ]
t "and the rest counted" has '^    (2 more sites)$'

# ---- --max-alloc ----
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-basic-accum.prof >"$tmp/a.prof" 2>/dev/null
alloc=$(to-folded --columns "$tmp/a.prof" | awk 'NR > 1 { s += $(NF - 1) } END { print s }')
hc --max-alloc 1MiB "$tmp/a.prof"
[ "$st" = 1 ] && has "^over  allocated: .* ($alloc bytes) > 1.0 MiB"
t "--max-alloc: over, allocated bytes as to-folded --columns sums them" [ $? = 0 ]
hc --max-alloc 1GiB --max-inuse 1GiB "$tmp/a.prof"
[ "$st" = 0 ] && has '0 of 2 checks over budget'
t "--max-alloc and --max-inuse within: exit 0, two checks" [ $? = 0 ]
to-pprof "$tmp/a.prof" | heap-check --max-alloc 1MiB >"$tmp/out" 2>"$tmp/err"; st=$?
[ "$st" = 1 ] && has "($alloc bytes)"
t "--max-alloc on a pprof's alloc_space" [ $? = 0 ]
for f in s.prof s.folded; do
	hc --max-alloc 1GiB "$tmp/$f"
	[ "$st" = 2 ] && err1 "^heap-check: $tmp/$f: no allocated bytes" && [ ! -s "$tmp/out" ]
	t "--max-alloc on $f (no allocated bytes): exit 2, one line" [ $? = 0 ]
done

# ---- --budget: first matching line takes a stack ----
cat >"$tmp/budget" <<'B'
# heap-check budget for fk-basic
fk_alloc_*     2MiB      # big, medium and small: 4073804 bytes
fks_*          2MiB
main           1KiB      # what the lines above left of main: fk_deep
nothing_here   1
B
hc --budget "$tmp/budget" "$tmp/s.prof"
t "--budget over: exit 1" [ "$st" = 1 ]
t "a line over: value, budget, share" has "^over  budget line 2 'fk_alloc_\*': 3.9 MiB (4073804 bytes) > 2.0 MiB, 59.1% of in use, 3 stacks"
t "its sites listed" grep -Eq '^    2.0 MiB +30.4%  fk_alloc_big' "$tmp/out"
t "a line within" has "^ok    budget line 3 'fks_\*': 1.6 MiB (1688861 bytes) <= 2.0 MiB"
t "a broad line gets only what earlier lines left" has "^over  budget line 4 'main': 1.0 MiB (1048576 bytes) > 1.0 KiB, 15.2% of in use, 1 stack"
t "a line no stack matched is said" has "^ok    budget line 5 'nothing_here': 0 B (0 bytes) <= 1 B, no stack matched"
t "2 of 4 over" has '2 of 4 checks over budget'
printf 'main 1KiB\nfk_alloc_* 2MiB\n' >"$tmp/budget2"
hc --budget "$tmp/budget2" "$tmp/s.prof"
has "^over  budget line 1 'main': 6.5 MiB (6811241 bytes)" && has "^ok    budget line 2 'fk_alloc_\*': 0 B"
t "order decides: main first takes every stack through main" [ $? = 0 ]
printf '*cache* 1\noperator new\\[\\] 1\n* 7MiB\n' >"$tmp/budget3"
hc --budget "$tmp/budget3" "$tmp/s.prof"
[ "$st" = 0 ] && has "^ok    budget line 3 '\*': 6.6 MiB ($total bytes)"
t "a last '*' line budgets the rest; quoted brackets are a pattern" [ $? = 0 ]

# ---- --base / --max-growth: only sites that grew ----
sed -e 's/fk_alloc_big 2097152/fk_alloc_big 1048576/' -e 's/fks_build_table 595103/fks_build_table 995103/' \
	"$tmp/s.folded" >"$tmp/base.folded"
echo "old;gone 5000" >>"$tmp/base.folded"
growth=$((1048576 - 400000 - 5000))
hc --base "$tmp/base.folded" --max-growth 1MiB "$tmp/s.prof"
[ "$st" = 0 ] && has "^ok    growth of in use: +628.5 KiB ($growth bytes) <= 1.0 MiB"
t "growth within: total +$growth and no site more than 1 MiB" [ $? = 0 ]
hc --base "$tmp/base.folded" --max-growth 1000KiB "$tmp/s.prof"
[ "$st" = 1 ] && has "; 1 site grew more"
t "a site past the limit fails the check though the total is within" [ $? = 0 ]
[ "$(grep -c '^    +' "$tmp/out")" = 1 ] && grep -Eq '^    \+1.0 MiB +from 1.0 MiB +fk_alloc_big' "$tmp/out"
t "only sites that grew are listed" [ $? = 0 ]
hc --base "$tmp/base.folded" --max-growth 5% "$tmp/s.prof"
[ "$st" = 1 ] && has "> 305.2 KiB (5.00%)"
t "N%: 5% of the base's in use is over" [ $? = 0 ]
hc --base "$tmp/base.folded" --max-growth 20.5% "$tmp/s.prof"
t "N% with decimals: 20.5% is within" [ "$st" = 0 ]
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-basic-mid.prof >"$tmp/mid.prof" 2>/dev/null
hc --base "$tmp/mid.prof" --max-growth 1MiB "$tmp/s.prof"
[ "$st" = 1 ] &&
	[ "$(grep -c '^    +' "$tmp/out")" -ge 2 ] &&
	awk '/^    \+/ { v = $1; sub(/^\+/, "", v); u = $2; x = v * (u == "MiB" ? 1048576 : u == "KiB" ? 1024 : 1);
		if (n++ && x > last) bad = 1; last = x } END { exit bad }' "$tmp/out"
t "a real base dump: the sites that grew most first" [ $? = 0 ]

# ---- formats ----
hc --budget "$tmp/budget" --max-inuse 1MiB --base "$tmp/base.folded" --max-growth 5% --format junit "$tmp/s.prof"
t "junit: exit 1" [ "$st" = 1 ]
t "junit: xmllint reads it" xmllint --noout "$tmp/out"
cp "$tmp/out" "$tmp/j.xml"
t "junit: one testcase per check, failures where over, naming sites" \
	python3 tests/check/checklib.py junit "$tmp/j.xml" 6 4 "in use" "budget line 2 'fk_alloc_*'" \
	"budget line 4 'main'" "growth of in use"
hc --max-inuse 1GiB --format junit "$tmp/s.prof"
[ "$st" = 0 ] && python3 tests/check/checklib.py junit "$tmp/out" 1 0
t "junit within: no failure" [ $? = 0 ]
hc --max-inuse 1 --format junit fixtures/folded/hostile.folded
xmllint --noout "$tmp/out" &&
	python3 tests/check/checklib.py junit "$tmp/out" 1 1
t "junit: markup and control bytes in names stay valid XML" [ $? = 0 ]
printf 'main;bad\001\377name 10\n' >"$tmp/ctl.folded"
hc --max-inuse 1 --format junit "$tmp/ctl.folded"
t "junit: invalid UTF-8 and controls replaced" xmllint --noout "$tmp/out"
hc --budget "$tmp/budget" --max-inuse 1MiB --format markdown "$tmp/s.prof"
cp "$tmp/out" "$tmp/m.md"
t "markdown: a table of the five checks" python3 tests/check/checklib.py markdown "$tmp/m.md" 5
t "markdown: over rows marked" [ "$(grep -c '| \*\*over\*\* |$' "$tmp/m.md")" = 3 ]
t "markdown: a sites table per check over" [ "$(grep -c '^#### ' "$tmp/m.md")" = 3 ]
hc --max-inuse 1 --format markdown fixtures/folded/hostile.folded
python3 tests/check/checklib.py markdown "$tmp/out" 1 && ! grep -q '<script>' "$tmp/out"
t "markdown: pipes and markup in names are escaped, the table holds" [ $? = 0 ]
# Text goes to terminals and CI logs: a name's controls (ESC sequences
# that would move the cursor and rewrite lines, CR, C1's CSI) become
# spaces and invalid UTF-8 U+FFFD, in sites, patterns and file names.
ctl="$tmp/ctl$(printf '\033')[2K.folded"
printf 'main;evil\033[2K\033[1A\rfaked ok\302\233 7m\237x 10\nmain;sane 5\n' >"$ctl"
printf 'evil\033[2K* 1\n' >"$tmp/ctl.budget"
hc --budget "$tmp/ctl.budget" --max-inuse 1 --base "$ctl" --max-growth 1 "$ctl"
t "text with controls in names: exit 1" [ "$st" = 1 ]
t "text: no control character but newlines, valid UTF-8" python3 tests/check/checklib.py plain "$tmp/out"
t "text: the site's other characters kept" \
	has "^    10 B  *66.7%  evil \[2K \[1A faked ok  7m$(printf '\357\277\275')x < main$"
t "text: the pattern's" has "^over  budget line 1 'evil \[2K\*': 10 B"
t "text: the profile's name" has "^$tmp/ctl \[2K.folded: in use"
t "text: the base's name" has "against $tmp/ctl \[2K.folded"
hc --budget "$tmp/ctl.budget" --max-inuse 1 --format markdown "$ctl"
t "markdown: the same" python3 tests/check/checklib.py plain "$tmp/out"
hc --max-inuse 1MiB -o "$tmp/r.txt" "$tmp/s.prof"
[ "$st" = 1 ] && [ ! -s "$tmp/out" ] && grep -q '^over  in use' "$tmp/r.txt"
t "-o FILE: the report there, nothing on stdout" [ $? = 0 ]

# ---- bad usage: exit 2 ----
for a in 1MB 1.5MiB -1 1kib '' 99999999999999999999 8589934592GiB '1 MiB'; do
	hc --max-inuse "$a" "$tmp/s.prof"
	[ "$st" = 2 ] && grep -q "bad --max-inuse '$a'" "$tmp/err" && [ ! -s "$tmp/out" ]
	t "bad size '$a': exit 2 naming it" [ $? = 0 ]
done
for a in 5 5.123% x% %; do
	hc --base "$tmp/s.prof" --max-growth "$a" "$tmp/s.prof"
	[ "$a" = 5 ] && { t "--max-growth 5 (bytes) is a size" [ "$st" = 0 ]; continue; }
	[ "$st" = 2 ] && grep -q "bad --max-growth '$a'" "$tmp/err"
	t "bad growth '$a': exit 2" [ $? = 0 ]
done
hc "$tmp/s.prof"
[ "$st" = 2 ] && grep -q 'no budget given' "$tmp/err"
t "no budget: exit 2" [ $? = 0 ]
hc --max-growth 1 "$tmp/s.prof"
[ "$st" = 2 ] && grep -q -- '--base and --max-growth go together' "$tmp/err"
t "--max-growth without --base: exit 2" [ $? = 0 ]
hc --base "$tmp/s.prof" --max-inuse 1 "$tmp/s.prof"
t "--base without --max-growth: exit 2" [ "$st" = 2 ]
hc --max-inuse 1 --format xml "$tmp/s.prof"
[ "$st" = 2 ] && grep -q "bad --format 'xml'" "$tmp/err"
t "bad --format: exit 2" [ $? = 0 ]
hc --max-inuse 1 "$tmp/s.prof" "$tmp/s.prof"
t "two profiles: exit 2" [ "$st" = 2 ]
hc --help
[ "$st" = 0 ] && has '^usage: heap-check'
t "--help: exit 0 on stdout" [ $? = 0 ]

# ---- bad budget files: exit 2, file and line ----
bad_budget() {   # bad_budget WHAT TEXT PATTERN
	printf "$2" >"$tmp/bad"
	hc --budget "$tmp/bad" "$tmp/s.prof"
	[ "$st" = 2 ] && err1 "^heap-check: $tmp/bad: line $3" && [ ! -s "$tmp/out" ]
	t "budget $1: exit 2, one line naming file:line" [ $? = 0 ]
}
bad_budget "without a size" '# c\nmain\n' "2: 'main' is not PATTERN SIZE"
bad_budget "with a bad size" 'main 1KiB\n\nfoo 12MB\n' "3: bad size '12MB'"
bad_budget "with a trailing word" 'main 1KiB tables\n' "1: bad size 'tables'"
bad_budget "repeating a pattern" 'main 1KiB\nfoo 1\nmain 2KiB\n' "3: pattern 'main' already on line 1"
bad_budget "with a NUL byte" 'main 1\nfo\000o 1\n' "2: NUL byte"
bad_budget "with a size past 2^63" 'main 9223372036854775808\n' "1: bad size"
hc --budget "$tmp/nonexistent" "$tmp/s.prof"
[ "$st" = 2 ] && err1 "^heap-check: $tmp/nonexistent: .*No such file"
t "missing budget file: exit 2" [ $? = 0 ]
printf '\n# only comments\n   \n' >"$tmp/empty.budget"
hc --budget "$tmp/empty.budget" "$tmp/s.prof"
[ "$st" = 0 ] && has '0 of 0 checks'
t "a budget file of comments: no checks, exit 0" [ $? = 0 ]

# ---- bad inputs: exit 2, one line, no report ----
bad_input() {   # bad_input WHAT FILE PATTERN
	hc --max-inuse 1GiB -o "$tmp/report" "$2"
	[ "$st" = 2 ] && err1 "$3" && [ ! -e "$tmp/report" ]
	t "$1: exit 2, one line, no report" [ $? = 0 ]
}
bad_input "missing profile" "$tmp/nonexistent" "^heap-check: $tmp/nonexistent: .*No such file"
: >"$tmp/empty"
bad_input "empty profile" "$tmp/empty" "^heap-check: $tmp/empty: empty input"
bad_input "malformed dump" fixtures/bad/dump-bad-hex.prof "^heap-check: fixtures/bad/dump-bad-hex.prof: line [0-9]+:"
bad_input "damaged dump header" fixtures/bad/dump-bad-magic.prof "^heap-check: fixtures/bad/dump-bad-magic.prof: "
bad_input "gzip that is no pprof" fixtures/bad/dump-gzipped.prof "^heap-check: fixtures/bad/dump-gzipped.prof: "
printf 'main;foo 12\nmain;bar x\n' >"$tmp/bad.folded"
bad_input "folded with a bad value" "$tmp/bad.folded" "^heap-check: $tmp/bad.folded: line 2: bad value 'x'"
printf '# columns: inuse_space/bytes alloc_space/bytes\nmain;foo 12\n' >"$tmp/cols.folded"
bad_input "columns folded with a value missing" "$tmp/cols.folded" "^heap-check: $tmp/cols.folded: line 2: 1 values, not 2"
printf '# columns: x/bytes\nmain;foo 12\n' >"$tmp/nocol.folded"
bad_input "columns folded without inuse_space" "$tmp/nocol.folded" "line 1: no inuse_space column"
bad_input "a CPU profile" fixtures/pprof/go-cpu.pb.gz "^heap-check: fixtures/pprof/go-cpu.pb.gz: no inuse_space sample type"
hc --max-inuse 1KiB --max-alloc 1KiB fixtures/pprof/go-heap.pb.gz
[ "$st" = 1 ] && has '^over  in use: .* (7127093 bytes)' && has '^over  allocated: ' && has 'main.allocLarge < main.main'
t "a Go heap profile: in use and allocated" [ $? = 0 ]
hc --base "$tmp/empty" --max-growth 1 "$tmp/s.prof"
[ "$st" = 2 ] && err1 "^heap-check: $tmp/empty: empty input"
t "bad base: exit 2 naming the base" [ $? = 0 ]
exit 0
