#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation lifetimes' cost (bench/README.md, "Lifetimes"):
#  1. recording at lg_sample 19 and 14: life-prog's malloc/free loop of
#     64-byte blocks with sampling on, FLAMEKIT_RECENT=0 against the
#     default record, runs interleaved; the ratio of their loop rates;
#  2. the record's memory at the default 65536 records: the program's
#     jemalloc figures (the settings' "memory", the hook's arena left out)
#     and the process's RSS once the list is full, against the same loop
#     with no record;
#  3. the time to serve a view of 100 000 records (and the settings, which
#     count them), medians of RUNS fetches.
# Usage (from the top of the tree, after make): B=build bench/lifetimes.sh [RUNS] [SECONDS]
set -eu
RUNS=${1:-7}
SECS=${2:-2}
. "$(dirname "$0")/hooklib.sh"
hook_bench_init lifetimes life-prog

# start LG [ENV=VALUE...]: life-prog serving $S with sampling on at LG.
start() {
	lg=$1; shift
	rm -f "$T/in" "$S"; mkfifo "$T/in"
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$S" FLAMEKIT_SNAPSHOT_S=0 \
		MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:$lg "$@" \
		"$PROG" <"$T/in" >>"$T/out" 2>"$T/err" &
	HPID=$!
	exec 3>"$T/in"
	w=0
	until c -o /dev/null http://localhost/internal/heap/settings 2>/dev/null; do
		w=$((w + 1)); [ $w -lt 200 ] || { echo "bench/lifetimes.sh: the host did not start" >&2; exit 1; }
		sleep 0.05
	done
	c -X POST -H 'X-Flamekit: 1' 'http://localhost/internal/heap/settings?enabled=true' >/dev/null
}
# loop SECONDS: the loop's malloc/free pairs per CPU second of its
# thread (on a shared machine the wall clock counts the others' work; the
# host's output is opened for appending, so emptying it here is safe).
loop() {
	: >"$T/out"
	echo "loop $1" >&3
	until grep -q '^loop ' "$T/out"; do sleep 0.05; done
	awk '/^loop / { printf "%.0f\n", $2 / $3 }' "$T/out"
}
stop() { echo quit >&3; exec 3>&-; wait "$HPID" 2>/dev/null || true; HPID=""; }
lt() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["lifetimes"][sys.argv[1]])' "$1"; }
mem() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["memory"][sys.argv[1]])' "$1"; }
rss() { awk '/^VmRSS/ { print $2 }' /proc/"$HPID"/status; }

echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## 1. recording's cost: $RUNS interleaved runs of a ${SECS} s loop; malloc/free pairs per CPU second"
for lg in 19 14; do
	: >"$T/off$lg"; : >"$T/on$lg"; : >"$T/ratio$lg"
	i=0
	while [ $i -lt "$RUNS" ]; do
		start $lg FLAMEKIT_RECENT=0; off=$(loop "$SECS"); stop
		start $lg; on=$(loop "$SECS"); stop
		echo "$off" >>"$T/off$lg"; echo "$on" >>"$T/on$lg"
		awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f\n", a / b }' >>"$T/ratio$lg"
		i=$((i + 1))
	done
	printf 'lg %s: sampling alone %s/s %s, with the record %s/s %s; ratio %s %s\n' $lg \
		"$(median <"$T/off$lg")" "$(spread "$T/off$lg")" "$(median <"$T/on$lg")" \
		"$(spread "$T/on$lg")" "$(median <"$T/ratio$lg")" "$(spread "$T/ratio$lg")"
done

echo "## 2. the record's memory at the default bound (lg 10 loop until the list is full)"
for mode in off on; do
	if [ $mode = off ]; then start 10 FLAMEKIT_RECENT=0; else start 10; fi
	loop 3 >/dev/null
	[ $mode = off ] || loop 3 >/dev/null
	s=$(c http://localhost/internal/heap/settings)
	printf '%s: records %s, allocated %s, metadata %s, resident %s, RSS %s kB\n' $mode \
		"$(printf '%s' "$s" | lt records)" "$(printf '%s' "$s" | mem allocated)" \
		"$(printf '%s' "$s" | mem metadata)" "$(printf '%s' "$s" | mem resident)" "$(rss)"
	stop
done

echo "## 3. serving a view of 100 000 records (medians of $RUNS fetches, seconds)"
start 10 FLAMEKIT_RECENT=100000
loop 4 >/dev/null
echo "records: $(c http://localhost/internal/heap/settings | lt records)"
for q in "view=temporary&format=folded" "view=temporary&format=pprof" "format=json" \
	 "view=freed&format=flame" "format=raw" settings; do
	: >"$T/t"
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ "$q" = settings ]; then u=http://localhost/internal/heap/settings; else u="http://localhost/internal/heap/lifetimes?$q"; fi
		c -o "$T/body" -w '%{time_total}\n' "$u" >>"$T/t"
		i=$((i + 1))
	done
	printf '%-30s %s s %s, %s bytes\n' "$q" "$(median <"$T/t")" "$(spread "$T/t")" "$(wc -c <"$T/body")"
done
echo "host RSS after: $(rss) kB"
stop
