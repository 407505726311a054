#!/bin/sh
# SPDX-License-Identifier: MIT
# gperftools and tcmalloc heap profiles, made here and now by a real program
# under libtcmalloc (tests/gperf/gperf-prog.cc, built at test time):
# HEAPPROFILE's dumps ("@ heapprofile"), MallocExtension's sampled heap
# ("@ heap_v2/R") and growth stacks ("@ growth"), and the same two in
# tcmalloc's other spellings ("@ heapz_v2/R", "@ growthz"). For each,
# jeprof-raw reads it (maps with gperftools' "rw--" permissions), its four
# unbiased totals equal google-pprof's on the same file, symbolize names the
# program's functions and to-folded's total equals jeprof-raw's, and what
# jeprof-raw writes reads back with the same totals; from-pprof's total
# equals go tool pprof's.
. "$(dirname "$0")/../lib/tap.sh"

g++ -O1 -g -o "$tmp/gperf-prog" tests/gperf/gperf-prog.cc -ltcmalloc 2>"$tmp/cc.err"
okif $? "gperf-prog builds against libtcmalloc" "$(head -3 "$tmp/cc.err")"
mkdir "$tmp/p"
HEAPPROFILE="$tmp/p/hp" TCMALLOC_SAMPLE_PARAMETER=524288 "$tmp/gperf-prog" "$tmp/p" 2>"$tmp/run.err"
okif $? "gperf-prog runs and writes its profiles" "$(head -3 "$tmp/run.err")"
# tcmalloc's own spellings of the same two forms.
sed '1s/@ heap_v2\//@ heapz_v2\//' "$tmp/p/sample.heap" >"$tmp/p/samplez.heap"
sed '1s/@ growth$/@ growthz/' "$tmp/p/growth.heap" >"$tmp/p/growthz.heap"

# google-pprof's total of one sample type: its collapsed lines, each printed
# with %d (truncated), so the exact total lies within one a line above it.
gtotal() {
	google-pprof --collapsed "--$1" "$tmp/gperf-prog" "$2" 2>/dev/null |
		awk '{ s += $NF } END { printf "%d %d\n", s, NR }'
}
# Our value of a --stats line.
stat() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }

for f in hp.0001.heap sample.heap samplez.heap growth.heap growthz.heap; do
	p="$tmp/p/$f"
	head -1 "$p" | sed 's/.*@ */type: /' >"$tmp/type"
	type=$(cat "$tmp/type")
	jeprof-raw -s -o "$tmp/$f.raw" "$p" 2>"$tmp/$f.stats"
	okif $? "$f ($type): jeprof-raw reads it" "$(head -1 "$tmp/$f.stats")"
	case "$f" in
	hp.0001.heap|sample.heap)
		grep -q '^[0-9a-f]*-[0-9a-f]* rw-- .*shared.bin$' "$p"
		okif $? "$f: its maps hold gperftools' 'rw--' line for the shared mapping" ;;
	esac
	sampled=0
	case "$type" in *_v2/*) sampled=1 ;; esac
	for kind in inuse_objects:objects inuse_space:bytes alloc_objects:alloc_objects alloc_space:alloc_bytes; do
		gt=$(gtotal "${kind%%:*}" "$p"); g=${gt% *}; lines=${gt#* }
		ours=$(stat "${kind#*:}" "$tmp/$f.stats")
		if [ "$sampled" = 1 ]; then
			# Unbiased: google-pprof truncates each line, we round the total.
			awk -v o="$ours" -v g="$g" -v l="$lines" 'BEGIN { exit !(o != "" && o >= g && o <= g + l + 0.5) }'
		else
			[ -n "$ours" ] && [ "$ours" = "$g" ]
		fi
		okif $? "$f: ${kind%%:*} $ours equals google-pprof's $g ($lines lines)"
	done
	jeprof-raw -s -c "$tmp/$f.raw" 2>"$tmp/$f.stats2"
	cmp -s "$tmp/$f.stats" "$tmp/$f.stats2"
	okif $? "$f: what jeprof-raw wrote reads back with the same totals"
	symbolize "$p" >"$tmp/$f.sym" 2>"$tmp/$f.serr" && to-folded "$tmp/$f.sym" >"$tmp/$f.folded" 2>>"$tmp/$f.serr"
	okif $? "$f: symbolize and to-folded read it" "$(head -1 "$tmp/$f.serr")"
	# Growth stacks are those that took memory from the system, from
	# whichever allocation found the page heap full.
	case "$f" in
	growth*) want=';main;' ;;
	*) want=';main;work;big_blocks ' ;;
	esac
	grep -q "$want" "$tmp/$f.folded"
	okif $? "$f: the program's own functions are named ('$want')" "$(cut -c1-150 "$tmp/$f.folded" | head -3)"
	total=$(awk '{ s += $NF } END { printf "%d", s }' "$tmp/$f.folded")
	lines=$(wc -l <"$tmp/$f.folded")
	bytes=$(stat bytes "$tmp/$f.stats")
	if [ "$sampled" = 1 ]; then
		# to-folded rounds each leaf function's sum, jeprof-raw the whole.
		awk -v t="$total" -v b="$bytes" -v l="$lines" 'BEGIN { d = t - b; exit !(d * d <= l * l / 4) }'
	else
		[ "$total" = "$bytes" ]
	fi
	okif $? "$f: to-folded's total $total equals jeprof-raw's $bytes"
	# go tool pprof reads these forms too: from-pprof gives its totals.
	HOME=$tmp go tool pprof -raw "$p" 2>/dev/null | awk '
		/^Samples:/ { s = 1; getline; next }
		s && /^[A-Z]/ { s = 0 }
		s && /^ +-?[0-9].*:/ { sub(/:.*/, ""); t += $NF }
		END { printf "%d", t }' >"$tmp/$f.go"
	from-pprof "$p" 2>"$tmp/$f.ferr" | awk '{ s += $NF } END { printf "%d", s }' >"$tmp/$f.fp"
	[ -s "$tmp/$f.go" ] && [ ! -s "$tmp/$f.ferr" ] && cmp -s "$tmp/$f.go" "$tmp/$f.fp"
	okif $? "$f: from-pprof's total $(cat "$tmp/$f.fp") equals go tool pprof's $(cat "$tmp/$f.go")" "$(head -1 "$tmp/$f.ferr")"
done
# The stacks are gperftools' own: once in 51 runs under load its dump held
# no small_blocks stack at all. What we name must be what google-pprof
# names in the same file (it prints arguments and addresses, we do not).
for fn in small_blocks big_blocks; do
	g=$(google-pprof --collapsed --inuse_space "$tmp/gperf-prog" "$tmp/p/hp.0001.heap" 2>/dev/null |
		grep -c "[;]$fn(")
	o=$(grep -c ";$fn " "$tmp/hp.0001.heap.folded")
	[ "$g" -gt 0 ] && [ "$o" -gt 0 ] || { [ "$g" = 0 ] && [ "$o" = 0 ]; }
	okif $? "hp.0001.heap: $fn in $o of our stacks, in $g of google-pprof's"
done
