#!/bin/sh
# SPDX-License-Identifier: MIT
# A continuous-profiling scraper's cost to the host (bench/README.md,
# "Repeated scrapes"): the hook under hook-bench-prog holding a live heap
# of 2^BITS distinct stacks (every allocation sampled) is scraped for
# GET /debug/pprof/heap COUNT times, one every INTERVAL seconds; then on to
# 600 scrapes, back to back, for the host's RSS. Per scrape: the host's CPU
# (utime + stime of /proc/PID/stat around the request, all threads, in
# clock ticks), the wall time (curl's). The first scrape (modules opened)
# is reported apart from the warm ones; jemalloc's own prof.dump is timed
# with format=raw requests (the dump, no conversion). RSS is VmRSS after
# scrape 10 and after scrape 600; a scrape's transient peak is VmHWM after
# one scrape with the peak reset just before (clear_refs 5).
# Usage (from the top of the tree, after make):
#   B=build bench/scrape.sh [COUNT [INTERVAL [BITS [TOTAL]]]]
# defaults 60 scrapes, 1 s, 14 bits, 600 scrapes in all.
# FLAMEKIT_CACHE_MB passes through (0: the uncached path, to compare).
set -eu
B=${B:-build}
COUNT=${1:-60}
INTERVAL=${2:-1}
BITS=${3:-14}
TOTAL=${4:-600}
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
HOOK=$B/libflamekit-hook.so
PROG=$B/hook-bench-prog
T=$(mktemp -d /tmp/fk-scrapebench.XXXXXX)
HPID=""
cleanup() { [ -n "$HPID" ] && kill -9 "$HPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
SB=$B/scrape-bench
for f in "$HOOK" "$PROG" "$JE" "$SB"; do
	[ -e "$f" ] || { echo "bench/scrape.sh: missing $f (run make B=$B)" >&2; exit 1; }
done
[ "$TOTAL" -ge "$COUNT" ] && [ "$TOTAL" -ge 10 ] ||
	{ echo "bench/scrape.sh: TOTAL must be at least COUNT and 10" >&2; exit 2; }
TICK_MS=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN { print 1000 / t }')
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$HPID/stat"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$HPID/status"; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$HPID/status"; }
# scrape URL FILE: one request; appends "cpu_ms wall_ms bytes" to FILE.
scrape() {
	c0=$(cpu)
	w=$(curl -s --max-time 120 -o "$T/body" -w '%{time_total}' "$1")
	c1=$(cpu)
	echo "$c0 $c1 $w $(wc -c <"$T/body")" |
		awk -v t="$TICK_MS" '{ printf "%.1f %.1f %d\n", ($2 - $1) * t, $3 * 1000, $4 }' >>"$2"
}
# stats FILE COL: mean, median, min, max of a column.
stats() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c; s += $c }
		END { printf "mean %.1f median %.1f [%.1f .. %.1f] (n=%d)", s / NR,
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

# jemalloc's prof.dump alone, before anything else touched the heap's
# conversion (the raw body is the dump as jemalloc wrote it).
: >"$T/raw"
i=0; while [ $i -lt 10 ]; do scrape "$U/internal/heap?format=raw" "$T/raw"; i=$((i + 1)); done
curl -s --max-time 120 -o "$T/dump.raw" "$U/internal/heap?format=raw"
stacks=$(grep -c '^@' "$T/dump.raw")

: >"$T/first"; : >"$T/warm"
echo 5 >"/proc/$HPID/clear_refs"
scrape "$U/debug/pprof/heap" "$T/first"
hwm1=$(hwm)
n=1
while [ $n -lt "$COUNT" ]; do
	sleep "$INTERVAL"
	[ $n -eq 30 ] && echo 5 >"/proc/$HPID/clear_refs"
	scrape "$U/debug/pprof/heap" "$T/warm"
	[ $n -eq 30 ] && hwmw=$(hwm)
	n=$((n + 1))
	[ $n -eq 10 ] && rss10=$(rss)
done
while [ $n -lt "$TOTAL" ]; do
	scrape "$U/debug/pprof/heap" "$T/warm"
	n=$((n + 1))
	[ $n -eq 10 ] && rss10=$(rss)
done
rssN=$(rss)
settings=$(curl -s --max-time 30 "$U/internal/heap/settings" | grep -o '"cache_[a-z]*":[0-9]*' | tr '\n' ' ')
exec 3>&-
wait "$HPID" || true
HPID=""

echo "# heap of $stacks distinct stacks; $COUNT scrapes every $INTERVAL s, then back to back to $TOTAL"
echo "# host CPU in ms (clock ticks of $TICK_MS ms, so one scrape reads a multiple of it); wall in ms"
echo "first scrape          cpu $(awk '{ print $1 }' "$T/first") ms, wall $(awk '{ print $2 }' "$T/first") ms, $(awk '{ print $3 }' "$T/first") bytes"
echo "warm scrapes  cpu     $(stats "$T/warm" 1)"
echo "warm scrapes  wall    $(stats "$T/warm" 2)"
echo "jemalloc dump (raw)   cpu $(stats "$T/raw" 1)"
echo "jemalloc dump (raw)   wall $(stats "$T/raw" 2)"
awk -v a="$(awk '{ s += $1 } END { print s / NR }' "$T/warm")" \
    -v j="$(awk '{ s += $1 } END { print s / NR }' "$T/raw")" \
    'BEGIN { printf "ours (warm - raw)     cpu %.1f ms a scrape (jemalloc %.1f)\n", a - j, j }'
echo "host RSS: before scraping $rss0 KB, after 10 scrapes $rss10 KB, after $TOTAL scrapes $rssN KB ($((rssN - rss10)) KB more)"
echo "scrape peak (VmHWM, reset just before): first $hwm1 KB, warm ${hwmw:-n/a} KB"
echo "settings: $settings"

# Our share alone, in one process with no jemalloc dump: the host's raw
# dump (its modules are this machine's files), and two real programs'
# dumps whose modules are on this machine (gcc's 33 MB cc1, python3.11).
# bench (the rounds of scrape-bench): first round, then the warm ones.
bench() {
	"$SB" $1 "$2" "$3" >"$T/sb" || return 1
	head -1 "$T/sb" | awk '{ printf "first %.1f ms cpu (%.1f wall)", $2, $3 }'
	tail -n +2 "$T/sb" >"$T/sbw"
	printf '; warm cpu %s; RSS after round 10 %s KB, after round %s %s KB\n' "$(stats "$T/sbw" 2)" \
		"$(awk 'NR == 10 { print $4 }' "$T/sb")" "$3" "$(tail -1 "$T/sb" | awk '{ print $4 }')"
}
echo "# our share alone (bench/scrape_bench.c: parse, symbolize, encode; no dump, no HTTP)"
echo "host's dump, cached:    $(bench "" "$T/dump.raw" "$COUNT")"
echo "host's dump, uncached:  $(bench --no-cache "$T/dump.raw" 10)"
for d in cc1 python3.11-live; do
	f=fixtures/dumps/$d.prof
	[ -e "$f" ] || continue
	echo "$d ($(grep -c '^@' "$f") stacks), cached:   $(bench "" "$f" "$COUNT")"
	echo "$d, uncached:            $(bench --no-cache "$f" 10)"
done
