#!/bin/sh
# SPDX-License-Identifier: MIT
# heap-series on the interval dumps of a real run of series-prog (a cache
# that grows in grow_cache, a spike in spike_alloc that is freed): the
# snapshots come in sequence order whatever the order of the arguments,
# the peak snapshot's top site is spike_alloc, the growth from the first
# to the last snapshot has grow_cache on top and not spike_alloc, and
# render-flame makes a valid page of it. Then its command-line contract:
# --help, bad names, mixed processes, a malformed dump (one line naming
# the file, status 1, nothing written).
. "$(dirname "$0")/../lib/tap.sh"
LC_ALL=C; export LC_ALL
t "series-prog runs under jemalloc with interval dumps" tests/hook/series-run.sh "$B" "$tmp/d"
ndumps=$(ls "$tmp/d" | grep -c '\.heap$')
t "it wrote at least 8 interval dumps ($ndumps)" [ "$ndumps" -ge 8 ]

# In name order, 10 sorts before 2; reversed, everything is backwards.
ls "$tmp/d"/*.heap | sort -r >"$tmp/rev"
heap-series $(cat "$tmp/rev") >"$tmp/s.folded" 2>"$tmp/err"; st=$?
t "heap-series succeeds" [ "$st" = 0 ]
t "and says nothing" [ ! -s "$tmp/err" ]
want=$(ls "$tmp/d"/*.heap | sed 's/.*\.\([0-9]*\)\.i[0-9]*\.heap$/\1/' | sort -n | tr '\n' ' ')
got=$(head -1 "$tmp/s.folded" | sed 's/^# columns: //; s|/bytes||g')
t "columns in sequence order, whatever the argument order ($got)" [ "$got " = "$want" ]
t "one '# series:' line per dump" [ "$(grep -c '^# series: ' "$tmp/s.folded")" = "$ndumps" ]
heap-series "$tmp/d"/*.heap >"$tmp/s2.folded"
t "the same output for the arguments in name order" cmp -s "$tmp/s.folded" "$tmp/s2.folded"

# top FOLDED COLUMN: the leaf frame with the most self value in a column
# (0-based); growth FOLDED A B: the leaf frames by growth, most first.
top_site() {
	awk -v c="$2" '!/^#/ { n = split($0, f, " "); k = split(f[1], fr, ";"); s[fr[k]] += f[n - NC + 1 + c] }
		/^# columns:/ { NC = NF - 2 }
		END { for (x in s) if (s[x] > best) { best = s[x]; b = x }; print b }' "$1"
}
growth() {
	awk -v a="$2" -v b="$3" '/^# columns:/ { NC = NF - 2 } !/^#/ { n = split($0, f, " "); k = split(f[1], fr, ";");
		g[fr[k]] += f[n - NC + 1 + b] - f[n - NC + 1 + a] }
		END { for (x in g) print g[x], x }' "$1" | sort -k1,1nr
}
peak=$(awk '/^# columns:/ { NC = NF - 2 } !/^#/ { n = split($0, f, " "); for (c = 0; c < NC; c++) tot[c] += f[n - NC + 1 + c] }
	END { for (c = 0; c < NC; c++) if (tot[c] > best) { best = tot[c]; b = c }; print b + 0 }' "$tmp/s.folded")
[ "$peak" -gt 0 ] && [ "$peak" -lt $((ndumps - 1)) ]
t "the peak snapshot ($peak) is inside the run" [ $? = 0 ]
site=$(top_site "$tmp/s.folded" "$peak")
t "the peak snapshot's top site is spike_alloc ($site)" [ "$site" = spike_alloc ]
growth "$tmp/s.folded" 0 $((ndumps - 1)) >"$tmp/growth"
t "growth first -> last: grow_cache on top ($(head -1 "$tmp/growth"))" [ "$(head -1 "$tmp/growth" | cut -d' ' -f2)" = grow_cache ]
sg=$(awk '$2 == "spike_alloc" { print $1 }' "$tmp/growth")
t "growth first -> last: spike_alloc did not grow (${sg:-absent})" [ "${sg:-0}" -le 0 ]
gc=$(awk '$2 == "grow_cache" { print $1 }' "$tmp/growth")
[ "$gc" -gt 4000000 ] && [ "$gc" -lt 7000000 ]
t "grow_cache grew by about 5 MiB ($gc)" [ $? = 0 ]

render-flame "$tmp/s.folded" >"$tmp/s.svg"
t "render-flame draws the series" [ -s "$tmp/s.svg" ]
t "as valid XML" xmllint --noout "$tmp/s.svg"
t "with the series data for the timeline" grep -q '<metadata id="fkseries">' "$tmp/s.svg"
heap-series "$tmp/d"/*.heap | render-flame >"$tmp/p.svg"
t "heap-series | render-flame works as a pipe" cmp -s "$tmp/s.svg" "$tmp/p.svg"

heap-series --mtime "$tmp/d"/*.heap >"$tmp/m.folded"
t "--mtime gives each snapshot a time" [ "$(grep -c '^# series: [0-9]* time=[0-9]*\.[0-9]*$' "$tmp/m.folded")" = "$ndumps" ]

# The command line.
heap-series --help >"$tmp/help"; st=$?
t "--help: status 0" [ "$st" = 0 ]
t "--help: usage on stdout" grep -q '^usage: heap-series' "$tmp/help"
heap-series >"$tmp/out" 2>"$tmp/err"; st=$?
t "no dump: status 2" [ "$st" = 2 ]
t "no dump: usage on stderr" grep -q '^usage: heap-series' "$tmp/err"
cp fixtures/dumps/fk-basic.prof "$tmp/heap.prof"
heap-series "$tmp/heap.prof" >"$tmp/out" 2>"$tmp/err"; st=$?
t "a name without a sequence number: status 1" [ "$st" = 1 ]
t "nothing written" [ ! -s "$tmp/out" ]
t "one line" [ "$(wc -l <"$tmp/err")" = 1 ]
t "naming the file" grep -q "^heap-series: $tmp/heap.prof: no sequence number" "$tmp/err"
heap-series --keep-order "$tmp/heap.prof" "$tmp/heap.prof" >"$tmp/out" 2>/dev/null; st=$?
t "--keep-order takes any names: status 0" [ "$st" = 0 ]
t "in the order given ($(head -1 "$tmp/out"))" [ "$(head -1 "$tmp/out")" = "# columns: 0/bytes 1/bytes" ]
first=$(ls "$tmp/d"/*.heap | head -1)
cp "$first" "$tmp/other.99.0.i0.heap"
heap-series "$first" "$tmp/other.99.0.i0.heap" >"$tmp/out" 2>"$tmp/err"; st=$?
t "dumps of two processes: status 1" [ "$st" = 1 ]
t "and why" grep -q "not [0-9]* like" "$tmp/err"
t "nothing written" [ ! -s "$tmp/out" ]
cp fixtures/bad/dump-bad-hex.prof "$tmp/bad.1.5.i3.heap"
mkdir "$tmp/o"
heap-series -o "$tmp/o/s.folded" "$first" "$tmp/bad.1.5.i3.heap" 2>"$tmp/err"; st=$?
t "a malformed dump: status 1" [ "$st" = 1 ]
t "one line" [ "$(wc -l <"$tmp/err")" = 1 ]
t "naming the bad file" grep -q "^heap-series: $tmp/bad.1.5.i3.heap: " "$tmp/err"
t "and no output file left" [ -z "$(ls "$tmp/o")" ]
echo "1..$n"
