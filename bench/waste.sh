#!/bin/sh
# SPDX-License-Identifier: MIT
# What GET /internal/heap/waste costs the host (bench/README.md, "Waste"):
# waste-prog under the hook with 200 000 fragmenting and 100 000 dense
# 64-byte objects sampled at lg 14 (each stack of one size: no record
# read), then ARENAS more arenas; or with waste-prog's mixed stack (two
# sizes: a request reads jemalloc's record of recent sampled allocations
# to split it), the record holding ~2 500 records, or full (65 536) after
# CHURN 4 KiB objects allocated and freed; for each format, RUNS requests: the process's CPU (utime + stime from
# /proc/PID/stat over RUNS requests, after one to warm up: their mean),
# the median request's wall time, and the host's RSS after them and at
# its peak during them (VmHWM, reset first through clear_refs) against
# before.
# Usage (from the top of the tree, after make):
#   B=build bench/waste.sh [RUNS] [ARENAS] [CHURN]
set -eu
RUNS=${1:-7}
ARENAS=${2:-256}
CHURN=${3:-400000}
. "$(dirname "$0")/hooklib.sh"
hook_bench_init waste waste-prog
ticks() { awk '{ print $14 + $15 }' "/proc/$HPID/stat"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$HPID/status"; }
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$HPID/status"; }
HZ=$(getconf CLK_TCK)

for conf in 0:0:0 "$ARENAS:0:0" 0:0:20000 "0:$CHURN:20000"; do
	extra=${conf%%:*} churn=${conf#*:} mixed=${churn#*:} churn=${churn%:*}
	rm -f "$T/in" "$S"; mkfifo "$T/in"
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$S" FLAMEKIT_SNAPSHOT_S=0 \
		MALLOC_CONF=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:14 \
		"$PROG" <"$T/in" >"$T/out" 2>"$T/err" &
	HPID=$!
	exec 3>"$T/in"
	until grep -q '^ready' "$T/out"; do sleep 0.1; done
	c -X POST 'http://localhost/internal/heap/settings?enabled=true' >/dev/null
	echo "frag 200000 100000" >&3
	until grep -q '^frag' "$T/out"; do sleep 0.1; done
	echo "arenas $extra" >&3
	until grep -q '^arenas' "$T/out"; do sleep 0.1; done
	echo "churn $churn" >&3
	until grep -q '^churn' "$T/out"; do sleep 0.1; done
	echo "mixed $mixed" >&3
	until grep -q '^mixed' "$T/out"; do sleep 0.1; done
	narenas=$(c 'http://localhost/internal/heap/settings' >/dev/null; \
		awk '/^arenas/ { print $2 }' "$T/out")
	for fmt in json folded flame; do
		c -o /dev/null "http://localhost/internal/heap/waste?format=$fmt"   # warm-up
		before=$(rss)
		echo 5 >"/proc/$HPID/clear_refs"   # VmHWM from here
		: >"$T/wall"; : >"$T/codes"
		t0=$(ticks)
		for i in $(seq "$RUNS"); do
			w0=$(date +%s%N)
			c -o "$T/body" -w "%{http_code}\n" \
				"http://localhost/internal/heap/waste?format=$fmt" >>"$T/codes"
			w1=$(date +%s%N)
			echo $(( (w1 - w0) / 1000000 )) >>"$T/wall"
		done
		t1=$(ticks)
		after=$(rss)
		peak=$(hwm)
		if grep -qv '^200$' "$T/codes"; then
			echo "bench/waste.sh: format=$fmt answered $(sort -u "$T/codes" | tr '\n' ' ')" >&2
			exit 1
		fi
		echo "arenas +$narenas churn $churn mixed $mixed format=$fmt: cpu $(awk "BEGIN { printf \"%.1f\", ($t1 - $t0) * 1000 / $HZ / $RUNS }") ms a request" \
			"(mean of $RUNS), wall $(median <"$T/wall") ms (median); RSS $before -> $after kB, peak $peak kB"
	done
	echo quit >&3
	exec 3>&-
	wait "$HPID" || true
	HPID=""
done
