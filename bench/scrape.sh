#!/bin/sh
# SPDX-License-Identifier: MIT
# A continuous-profiling scraper's cost to the host (bench/README.md,
# "Repeated scrapes"): the hook under hook-bench-prog holding a live heap
# of 2^BITS distinct stacks (every allocation sampled) is scraped for
# GET /debug/pprof/heap COUNT times, one every INTERVAL seconds, each
# beside a HEAD of format=raw (jemalloc's own prof.dump and nothing else:
# the dump is made, not sent), so both are measured side by side under the
# same load; then on to TOTAL scrapes, back to back, for the host's RSS.
# Per request: the host's CPU in nanoseconds (the first field of every
# thread's /proc/PID/task/TID/schedstat, summed, around the request; the
# clock-tick figure of /proc/PID/stat is printed beside it as a check) and
# the wall time (curl's). The first scrape (modules opened) is reported
# apart from the warm ones. RSS is VmRSS after scrape 10 and after scrape
# TOTAL; a scrape's transient peak is VmHWM after one scrape with the peak
# reset just before (clear_refs 5).
# CHANGE > 0 makes the heap change before each pair: CHANGE of its stacks
# get one more block each (hook-bench-prog's "grow"), so the dump is new
# every time and only those stacks' counts differ; 0 leaves the heap as it
# is (a heap at rest, whose answers the hook keeps: capture/serve_memo.c).
# Usage (from the top of the tree, after make):
#   B=build bench/scrape.sh [COUNT [INTERVAL [BITS [TOTAL [CHANGE]]]]]
# defaults 60 scrapes, 1 s, 14 bits, 600 scrapes in all, CHANGE 0.
# FLAMEKIT_CACHE_MB passes through (0: the uncached path, to compare).
set -eu
COUNT=${1:-60}
INTERVAL=${2:-1}
BITS=${3:-14}
TOTAL=${4:-600}
CHANGE=${5:-0}
. "$(dirname "$0")/hooklib.sh"
SB=$B/scrape-bench
hook_bench_init scrape hook-bench-prog "$SB"
[ "$TOTAL" -ge "$COUNT" ] && [ "$TOTAL" -ge 10 ] ||
	{ echo "bench/scrape.sh: TOTAL must be at least COUNT and 10" >&2; exit 2; }
TICK_MS=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN { print 1000 / t }')
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$HPID/stat"; }
# The host's CPU so far in ns, every live thread's (a thread that ends
# during a request would take its share along: ticks() keeps it).
cpu_ns() { cat /proc/"$HPID"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$HPID/status"; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$HPID/status"; }
# scrape URL FILE [-I]: one request (-I: HEAD); appends "cpu_ms wall_ms
# bytes tick_ms" to FILE.
scrape() {
	t0=$(ticks); c0=$(cpu_ns)
	w=$(curl -s ${3:-} --max-time 120 -o "$T/body" -w '%{time_total}' "$1")
	c1=$(cpu_ns); t1=$(ticks)
	echo "$c0 $c1 $w $(wc -c <"$T/body") $t0 $t1" |
		awk -v t="$TICK_MS" '{ printf "%.3f %.1f %d %.1f\n", ($2 - $1) / 1e6, $3 * 1000, $4, ($6 - $5) * t }' >>"$2"
}
# stats FILE COL: mean, median, min, max of a column.
stats() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c; s += $c }
		END { printf "mean %.2f median %.2f [%.2f .. %.2f] (n=%d)", s / NR,
		      v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}

echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs;" \
	"FLAMEKIT_CACHE_MB=${FLAMEKIT_CACHE_MB:-(default)}"
pt=$(port)
mkfifo "$T/in"
env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
	FLAMEKIT_HTTP=127.0.0.1:$pt "$PROG" stacks "$BITS" <"$T/in" >"$T/out" 2>"$T/err" &
HPID=$!
exec 3>"$T/in"
i=0; while ! grep -q ready "$T/out" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ready "$T/out" || { echo "bench/scrape.sh: the host did not start" >&2; cat "$T/err" >&2; exit 1; }
U=http://127.0.0.1:$pt
rss0=$(rss)

curl -s --max-time 120 -o "$T/dump.raw" "$U/internal/heap?format=raw"
stacks=$(grep -c '^@' "$T/dump.raw")

: >"$T/first"; : >"$T/warm"; : >"$T/raw"; : >"$T/pair"
echo 5 >"/proc/$HPID/clear_refs"
scrape "$U/debug/pprof/heap" "$T/first"
hwm1=$(hwm)
n=1
while [ $n -lt "$COUNT" ]; do
	sleep "$INTERVAL"
	[ $n -eq 30 ] && echo 5 >"/proc/$HPID/clear_refs"
	if [ "$CHANGE" -gt 0 ]; then
		echo "grow $CHANGE" >&3
		i=0; while [ "$(grep -c '^grown' "$T/out")" -lt "$n" ] && [ $i -lt 600 ]; do
			sleep 0.05; i=$((i + 1)); done
		[ "$(grep -c '^grown' "$T/out")" -ge "$n" ] ||
			{ echo "bench/scrape.sh: the host did not grow its heap" >&2; cat "$T/err" >&2; exit 1; }
	fi
	# The two in turns, so that a change of the machine's load falls on
	# both: jemalloc's dump alone, then a whole scrape.
	scrape "$U/internal/heap?format=raw" "$T/raw" -I
	scrape "$U/debug/pprof/heap" "$T/warm"
	[ $n -eq 30 ] && hwmw=$(hwm)
	n=$((n + 1))
	[ $n -eq 10 ] && rss10=$(rss)
done
cp "$T/warm" "$T/pair"
while [ $n -lt "$TOTAL" ]; do
	scrape "$U/debug/pprof/heap" "$T/warm"
	n=$((n + 1))
	[ $n -eq 10 ] && rss10=$(rss)
done
rssN=$(rss)
settings=$(curl -s --max-time 30 "$U/internal/heap/settings" | grep -o '"\(cache\|memo\)_[a-z]*":[0-9]*' | tr '\n' ' ')
exec 3>&-
wait "$HPID" || true
HPID=""

echo "# heap of $stacks distinct stacks; $CHANGE of them changed before each pair;"
echo "# $COUNT scrapes every $INTERVAL s, each beside a"
echo "# HEAD of format=raw (jemalloc's prof.dump alone), then back to back to $TOTAL"
echo "# host CPU in ms (schedstat, ns); ticks: the same from /proc/PID/stat, 10 ms a tick"
echo "first scrape          cpu $(awk '{ print $1 }' "$T/first") ms, wall $(awk '{ print $2 }' "$T/first") ms, $(awk '{ print $3 }' "$T/first") bytes"
echo "warm scrapes, paired  cpu  $(stats "$T/pair" 1)"
echo "jemalloc dump alone   cpu  $(stats "$T/raw" 1)"
echo "warm scrapes, paired  ticks $(stats "$T/pair" 4)"
echo "jemalloc dump alone   ticks $(stats "$T/raw" 4)"
echo "warm scrapes, all     cpu  $(stats "$T/warm" 1)"
echo "warm scrapes, all     wall $(stats "$T/warm" 2)"
median() { sort -n -k1 "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mean() { awk '{ s += $1 } END { print s / NR }' "$1"; }
awk -v a="$(mean "$T/pair")" -v j="$(mean "$T/raw")" -v am="$(median "$T/pair")" -v jm="$(median "$T/raw")" \
    'BEGIN { printf "ours (scrape - dump)  cpu %.2f ms a scrape by means, %.2f by medians; scrape / dump %.3fx by means, %.3fx by medians\n", a - j, am - jm, a / j, am / jm }'
echo "host RSS: before scraping $rss0 KB, after 10 scrapes $rss10 KB, after $TOTAL scrapes $rssN KB ($((rssN - rss10)) KB more)"
echo "scrape peak (VmHWM, reset just before): first $hwm1 KB, warm ${hwmw:-n/a} KB"
echo "settings: $settings"

# Our share alone, in one process with no jemalloc dump: the host's raw
# dump (its modules are this machine's files; "memo": parsed and encoded
# with the memos the hook keeps, the same dump each round, so the stacks
# and the limit's trie are found again and every answer is made anew), and two real programs'
# dumps whose modules are on this machine (gcc's 33 MB cc1, python3.11);
# on jemalloc, as the hook runs (its own arena keeps freed pages).
# bench (the rounds of scrape-bench): first round, then the warm ones.
bench() {
	LD_PRELOAD=$JE "$SB" $1 "$2" "$3" >"$T/sb" || return 1
	head -1 "$T/sb" | awk '{ printf "first %.1f ms cpu (%.1f wall)", $2, $3 }'
	tail -n +2 "$T/sb" >"$T/sbw"
	printf '; warm cpu %s; RSS after round 10 %s KB, after round %s %s KB\n' "$(stats "$T/sbw" 2)" \
		"$(awk 'NR == 10 { print $4 }' "$T/sb")" "$3" "$(tail -1 "$T/sb" | awk '{ print $4 }')"
}
echo "# our share alone (bench/scrape_bench.c: parse, symbolize, encode; no dump, no HTTP)"
echo "host's dump, memo:      $(bench --memo "$T/dump.raw" "$COUNT")"
echo "host's dump, cached:    $(bench "" "$T/dump.raw" "$COUNT")"
echo "host's dump, uncached:  $(bench --no-cache "$T/dump.raw" 10)"
for d in cc1 python3.11-live; do
	f=fixtures/dumps/$d.prof
	[ -e "$f" ] || continue
	echo "$d ($(grep -c '^@' "$f") stacks), cached:   $(bench "" "$f" "$COUNT")"
	echo "$d, uncached:            $(bench --no-cache "$f" 10)"
done
