#!/bin/sh
# SPDX-License-Identifier: MIT
# What the timeline's per-column table costs in memory (bench/README.md,
# "The timeline's memory"): RUNS runs each, medians of peak RSS
# (/usr/bin/time -v, bench/lib.sh):
#  1. render-flame on a 512-column folded file of 8 stacks (10 KB);
#  2. a host under the hook with a heap of 2^BITS stacks (hook-bench-prog
#     stacks BITS, every allocation sampled), SNAPS snapshots taken: its
#     VmRSS before and its VmHWM after one GET /internal/heap/timeline;
#     then render-flame on that timeline as folded text.
# Usage (after make): B=build bench/timeline-mem.sh [RUNS [BITS [SNAPS]]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
runs=${1:-5}
BITS=${2:-12}
SNAPS=${3:-20}
. "$top/bench/hooklib.sh"
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
HOOK=$B/libflamekit-hook.so
tmp=$(mktemp -d /tmp/fk-tlmem.XXXXXX)
HPID=""
cleanup() { [ -n "$HPID" ] && kill -9 "$HPID" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$top/bench/lib.sh"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - >"$tmp/c512.folded" <<'PY'
import random
random.seed(3)
print("# columns: " + " ".join("c%d" % i for i in range(512)))
for i in range(8):
    print("main;f%d;g %s" % (i, " ".join(str(random.randint(0, 3)) if random.random() < 0.5 else "0"
                                         for _ in range(512))))
PY
measure c512 "'$B/render-flame' '$tmp/c512.folded'"
echo "render-flame, 512 columns x 8 stacks ($(wc -c <"$tmp/c512.folded") bytes): $(($(median c512 2) / 1024)) MB peak RSS (median of $runs)"

# host RUN: one host, SNAPS snapshots, one timeline GET; appends
# "rss_before_kb hwm_after_kb" to $tmp/host and keeps the folded timeline.
host() {
	hook_bench_start "$tmp" "$B/hook-bench-prog" "$BITS" 300
	k=0
	while [ $k -lt "$SNAPS" ]; do
		c -X POST -H 'X-Flamekit: 1' http://localhost/internal/heap/snapshot >/dev/null; k=$((k + 1))
	done
	r0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$HPID/status")
	c -o "$tmp/tl.svg" -w '%{http_code}\n' http://localhost/internal/heap/timeline >"$tmp/code"
	h1=$(awk '/^VmHWM:/ { print $2 }' "/proc/$HPID/status")
	echo "$r0 $h1 $(cat "$tmp/code")" >>"$tmp/host"
	c -o "$tmp/tl.folded" "http://localhost/internal/heap/timeline?format=folded"
	exec 3>&-
	wait "$HPID" || true
	HPID=""
}
: >"$tmp/host"
r=0; while [ $r -lt "$runs" ]; do host; r=$((r + 1)); done
hb=$(sort -n -k1 "$tmp/host" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
ha=$(sort -n -k2 "$tmp/host" | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')
stacks=$(($(grep -vc '^#' "$tmp/tl.folded") ))
echo "host, $stacks stacks x $SNAPS snapshots: VmRSS $((hb / 1024)) MB before, VmHWM $((ha / 1024)) MB after one timeline GET (status $(cut -d' ' -f3 "$tmp/host" | sort -u | tr '\n' ' '); median of $runs)"
measure tl "'$B/render-flame' '$tmp/tl.folded'"
echo "render-flame on that timeline ($(wc -c <"$tmp/tl.folded") bytes): $(($(median tl 2) / 1024)) MB peak RSS (median of $runs)"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
