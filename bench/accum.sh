#!/bin/sh
# SPDX-License-Identifier: MIT
# What prof_accum:true, in the hook's default malloc_conf since
# /debug/pprof/allocs, costs the host (bench/README.md, "prof_accum"):
#  1. speed: hook-bench-prog's malloc/free loop preloaded with the hook,
#     sampling inactive and active at lg 19, with and without prof_accum;
#  2. memory: hook-bench-prog churn B (a block allocated and freed at once
#     on each of 2^B distinct stacks), VmRSS at the end, with and without
#     prof_accum, at lg 19 and at lg 0 (every allocation sampled: the
#     worst case, every freed stack kept).
# Runs interleaved; medians with [min .. max]. Usage (after make):
#   B=build bench/accum.sh [RUNS] [LOOP_N] [CHURN_BITS]
set -eu
RUNS=${1:-11}
N=${2:-20000000}
BITS=${3:-16}
. "$(dirname "$0")/hooklib.sh"
hook_bench_init accum hook-bench-prog
run() { # NAME MALLOC_CONF ARGS...: one run, its output appended to $T/NAME
	name=$1; conf=$2; shift 2
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$T/s" MALLOC_CONF="$conf" "$PROG" "$@" >>"$T/$name"
}
C=prof:true,lg_prof_sample
echo "# $RUNS interleaved runs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
r=0
while [ $r -lt "$RUNS" ]; do
	run in_off "$C:19,prof_active:false,prof_accum:false" loop "$N"
	run in_on "$C:19,prof_active:false,prof_accum:true" loop "$N"
	run ac_off "$C:19,prof_active:true,prof_accum:false" loop "$N"
	run ac_on "$C:19,prof_active:true,prof_accum:true" loop "$N"
	for lg in 19 0; do
		run "ch${lg}_off" "$C:$lg,prof_active:true,prof_accum:false" churn "$BITS"
		run "ch${lg}_on" "$C:$lg,prof_active:true,prof_accum:true" churn "$BITS"
	done
	r=$((r + 1))
done
pct() { echo "$1 $2" | awk '{ printf "%+.1f %%", ($1 / $2 - 1) * 100 }'; }
for m in in ac; do
	off=$(median <"$T/${m}_off"); on=$(median <"$T/${m}_on")
	label=$([ $m = in ] && echo "inactive" || echo "active lg 19")
	printf 'loop %s M pairs, %-12s  prof_accum off %s s %s  on %s s %s  (%s)\n' "$((N / 1000000))" "$label" \
		"$off" "$(spread "$T/${m}_off")" "$on" "$(spread "$T/${m}_on")" "$(pct "$on" "$off")"
done
for lg in 19 0; do
	for s in off on; do
		cut -d' ' -f1 "$T/ch${lg}_$s" >"$T/cpu_$s"; cut -d' ' -f2 "$T/ch${lg}_$s" >"$T/rss_$s"
	done
	printf 'churn 2^%s freed stacks, lg %-2s   RSS off %s kB, on %s kB (+%s kB); CPU off %s s, on %s s\n' "$BITS" "$lg" \
		"$(median <"$T/rss_off")" "$(median <"$T/rss_on")" \
		"$(($(median <"$T/rss_on") - $(median <"$T/rss_off")))" \
		"$(median <"$T/cpu_off")" "$(median <"$T/cpu_on")"
done
