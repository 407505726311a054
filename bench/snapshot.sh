#!/bin/sh
# SPDX-License-Identifier: MIT
# What the hook's snapshots cost (bench/README.md, "Snapshots"):
#  1. one snapshot (POST /internal/heap/snapshot) of a heap of 2^BITS
#     distinct stacks (hook-bench-prog stacks, every allocation sampled):
#     the CPU time of the hook's thread (its schedstat, in ns) for each of
#     RUNS snapshots, median and [min .. max];
#  2. 100 more snapshots of that heap: the ring's bytes against its default
#     budget, and the host's VmRSS before and after;
#  3. an allocation-heavy loop (hook-bench-prog loop N, sampling active at
#     lg 19): jemalloc alone, the hook with snapshots at the default period
#     and every second, interleaved, medians of process CPU seconds.
# Usage (after make): B=build bench/snapshot.sh [RUNS] [BITS] [LOOP_N]
set -eu
RUNS=${1:-11}
BITS=${2:-13}
N=${3:-100000000}
. "$(dirname "$0")/hooklib.sh"
hook_bench_init snapshot hook-bench-prog
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

hook_bench_start "$T" "$PROG" "$BITS" 120
c http://localhost/internal/heap/settings >/dev/null
tid=""
for t in /proc/$HPID/task/*; do
	[ "$(cat "$t/comm")" = flamekit-hook ] && tid=${t##*/}
done
[ -n "$tid" ] || { echo "bench/snapshot.sh: no flamekit-hook thread" >&2; exit 1; }
cpu() { cut -d' ' -f1 "/proc/$HPID/task/$tid/schedstat"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$HPID/status"; }
stacks=$(c "http://localhost/internal/heap?format=raw" | grep -c '^@')
r=0
while [ $r -lt "$RUNS" ]; do
	a=$(cpu)
	c -X POST -H 'X-Flamekit: 1' http://localhost/internal/heap/snapshot >/dev/null
	b=$(cpu)
	echo $(((b - a) / 1000)) >>"$T/snap_us"
	a=$(cpu)
	c -o /dev/null "http://localhost/internal/heap?format=raw"
	b=$(cpu)
	echo $(((b - a) / 1000)) >>"$T/raw_us"
	r=$((r + 1))
done
printf 'one snapshot of %s stacks: %s us of the hook thread %s; a raw dump alone (jemalloc prof.dump): %s us %s\n' \
	"$stacks" "$(median <"$T/snap_us")" "$(spread "$T/snap_us")" "$(median <"$T/raw_us")" "$(spread "$T/raw_us")"
r0=$(rss)
k=0
while [ $k -lt 100 ]; do c -X POST -H 'X-Flamekit: 1' http://localhost/internal/heap/snapshot >/dev/null; k=$((k + 1)); done
set_=$(c http://localhost/internal/heap/settings)
r1=$(rss)
echo "after 100 more snapshots: $(echo "$set_" | grep -o '"snapshots":[0-9]*'), $(echo "$set_" | grep -o '"snapshot_bytes":[0-9]*') of $(echo "$set_" | grep -o '"snapshot_budget":[0-9]*'); host VmRSS $r0 -> $r1 kB (+$((r1 - r0)) kB)"
a=$(cpu); c -o "$T/tl.svg" http://localhost/internal/heap/timeline; b=$(cpu)
echo "the timeline page of those snapshots: $(((b - a) / 1000000)) ms of the hook thread, $(wc -c <"$T/tl.svg") bytes"
exec 3>&-
wait "$HPID" || true
HPID=""

ACTIVE=prof:true,prof_active:true,lg_prof_sample:19
r=0
while [ $r -lt "$RUNS" ]; do
	env LD_PRELOAD="$JE" MALLOC_CONF=$ACTIVE "$PROG" loop "$N" >>"$T/je"
	env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ACTIVE FLAMEKIT_HTTP="unix:$T/l" "$PROG" loop "$N" >>"$T/def"
	env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ACTIVE FLAMEKIT_HTTP="unix:$T/l" FLAMEKIT_SNAPSHOT_S=1 "$PROG" loop "$N" >>"$T/one"
	r=$((r + 1))
done
je=$(median <"$T/je"); def=$(median <"$T/def"); one=$(median <"$T/one")
pct() { echo "$1 $2" | awk '{ printf "%+.2f %%", ($1 / $2 - 1) * 100 }'; }
printf 'loop %s M pairs, active lg 19: jemalloc alone %s s %s\n' "$((N / 1000000))" "$je" "$(spread "$T/je")"
printf '  hook, snapshots every 60 s (default) %s s %s (%s)\n' "$def" "$(spread "$T/def")" "$(pct "$def" "$je")"
printf '  hook, snapshots every second         %s s %s (%s)\n' "$one" "$(spread "$T/one")" "$(pct "$one" "$je")"
