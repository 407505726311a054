#!/bin/sh
# SPDX-License-Identifier: MIT
# libflamekit-hook's cost (bench/README.md, "libflamekit-hook"):
#  1. a malloc/free loop preloaded with the hook, sampling inactive, against
#     plain jemalloc (target: at most 1 % slower);
#  2. the same with sampling active at lg_prof_sample 19, against jemalloc
#     with the same MALLOC_CONF and no hook (target: at most 2 %);
#  3. the time to serve a pprof of a heap with 16384 distinct stacks
#     (target: at most 300 ms), and the host's peak RSS meanwhile.
# Runs are interleaved (the hook serving a unix socket, so no helper runs
# between them); medians are printed with the [min .. max] of the runs. Usage (from the top of the
# tree, after make): B=build bench/hook.sh [RUNS] [LOOP_N]
set -eu
RUNS=${1:-11}
N=${2:-20000000}
. "$(dirname "$0")/hooklib.sh"
hook_bench_init hook hook-bench-prog

ACTIVE=prof:true,prof_active:true,lg_prof_sample:19
INACTIVE=prof:true,prof_active:false,lg_prof_sample:19
echo "# $RUNS interleaved runs of $N malloc/free pairs each; medians of process CPU seconds"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$RUNS" ]; do
	env LD_PRELOAD="$JE" "$PROG" loop "$N" >>"$T/plain"
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$T/s" "$PROG" loop "$N" >>"$T/hook_inactive"
	env LD_PRELOAD="$JE" MALLOC_CONF=$INACTIVE "$PROG" loop "$N" >>"$T/je_inactive"
	env LD_PRELOAD="$JE" MALLOC_CONF=$ACTIVE "$PROG" loop "$N" >>"$T/je_active"
	env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ACTIVE FLAMEKIT_HTTP="unix:$T/s" "$PROG" loop "$N" >>"$T/hook_active"
	i=$((i + 1))
done
p=$(median <"$T/plain"); hi=$(median <"$T/hook_inactive"); ji=$(median <"$T/je_inactive")
ja=$(median <"$T/je_active"); ha=$(median <"$T/hook_active")
printf 'plain jemalloc                  %s s %s\n' "$p" "$(spread "$T/plain")"
printf 'hook, sampling inactive         %s s %s  (%+.2f %% vs plain jemalloc; target <= 1 %%)\n' "$hi" \
	"$(spread "$T/hook_inactive")" "$(echo "$hi $p" | awk '{ print ($1 / $2 - 1) * 100 }')"
printf 'jemalloc, prof on, inactive     %s s %s  (%+.2f %% vs plain: jemalloc'"'"'s share of the above)\n' "$ji" \
	"$(spread "$T/je_inactive")" "$(echo "$ji $p" | awk '{ print ($1 / $2 - 1) * 100 }')"
printf 'jemalloc, active lg 19          %s s %s  (%+.2f %% vs plain: jemalloc'"'"'s own sampling)\n' "$ja" \
	"$(spread "$T/je_active")" "$(echo "$ja $p" | awk '{ print ($1 / $2 - 1) * 100 }')"
printf 'hook, active lg 19              %s s %s  (%+.2f %% vs jemalloc active; target <= 2 %%)\n' "$ha" \
	"$(spread "$T/hook_active")" "$(echo "$ha $ja" | awk '{ print ($1 / $2 - 1) * 100 }')"

# 3. Serving a pprof of a 16384-stack heap (every allocation sampled).
pt=$(port)
mkfifo "$T/in"
# (time itself must not be preloaded: it would own FLAMEKIT_HTTP.)
/usr/bin/time -v -o "$T/rss" env LD_PRELOAD="$HOOK $JE" \
	MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
	FLAMEKIT_HTTP=127.0.0.1:$pt "$PROG" stacks 14 <"$T/in" >"$T/out" 2>"$T/err" &
HPID=$!
exec 3>"$T/in"
i=0; while ! grep -q ready "$T/out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
U=http://127.0.0.1:$pt
curl -s --max-time 60 "$U/internal/heap?format=raw" >"$T/raw"
stacks=$(grep -c '^@' "$T/raw")
for f in pprof raw folded flame; do
	: >"$T/t.$f"
	i=0
	while [ $i -lt 5 ]; do
		curl -s --max-time 60 -o "$T/body.$f" -w '%{time_total}\n' "$U/internal/heap?format=$f" >>"$T/t.$f"
		i=$((i + 1))
	done
done
exec 3>&-
wait "$HPID" || true
HPID=""
echo "# heap of $stacks distinct stacks, $(wc -c <"$T/raw") bytes raw; median of 5 requests"
for f in pprof raw folded flame; do
	printf 'serve format=%-7s %6.0f ms  (%s bytes)\n' "$f" \
		"$(median <"$T/t.$f" | awk '{ print $1 * 1000 }')" "$(wc -c <"$T/body.$f")"
done
echo "host peak RSS while serving: $(awk '/Maximum resident/ { print $NF }' "$T/rss") KB"
