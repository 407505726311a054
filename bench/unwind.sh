#!/bin/sh
# SPDX-License-Identifier: MIT
# The sampling backtrace's cost (bench/README.md, "The sampling backtrace"):
#  1. nanoseconds per backtrace 21 frames below main (27 frames in all),
#     side by side: the hook's (capture/hook_unwind.c, through
#     experimental.hooks.prof_backtrace), libgcc's _Unwind_Backtrace with
#     jemalloc's callback (what jemalloc's own does) and libunwind's
#     unw_backtrace (a reference);
#  2. 5 M malloc/free pairs 21 frames deep at lg_prof_sample 12, process
#     CPU seconds with the hook's backtrace and with jemalloc's own
#     (FLAMEKIT_UNWIND=jemalloc), and without sampling: the ratio of the
#     two (target: at most 0.5).
# Runs are interleaved; medians with the [min .. max] of the runs. Usage
# (from the top of the tree, after make): B=build bench/unwind.sh [RUNS]
set -eu
RUNS=${1:-7}
N=5000000
DEPTH=21
. "$(dirname "$0")/hooklib.sh"
hook_bench_init unwind unwind-bench-prog
# run ENV... -- ARGS: the program preloaded with the hook and jemalloc.
run() { env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$T/s" "$@"; }

echo "# $RUNS interleaved runs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$RUNS" ]; do
	run MALLOC_CONF=prof:true "$PROG" bt 200000 $DEPTH >>"$T/bt_hook"
	run MALLOC_CONF=prof:true "$PROG" libgcc 20000 $DEPTH >>"$T/bt_gcc"
	# libunwind.so.8 is a reference only: "n/a" where it is not installed.
	run MALLOC_CONF=prof:true "$PROG" libunwind 200000 $DEPTH >>"$T/bt_unw" 2>/dev/null || echo "n/a 0" >>"$T/bt_unw"
	run MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:12 "$PROG" loop $N $DEPTH >>"$T/off"
	run MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:12 "$PROG" loop $N $DEPTH >>"$T/hook"
	run MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:12 FLAMEKIT_UNWIND=jemalloc \
		"$PROG" loop $N $DEPTH >>"$T/je"
	i=$((i + 1))
done
for f in bt_hook bt_gcc bt_unw; do cut -d' ' -f1 "$T/$f" >"$T/$f.ns"; done
frames=$(cut -d' ' -f2 "$T/bt_hook" | median)
bh=$(median <"$T/bt_hook.ns"); bg=$(median <"$T/bt_gcc.ns"); bu=$(median <"$T/bt_unw.ns")
printf 'ns per backtrace (%s frames): hook %s %s, libgcc %s %s, libunwind %s %s\n' "$frames" \
	"$bh" "$(spread "$T/bt_hook.ns")" "$bg" "$(spread "$T/bt_gcc.ns")" "$bu" "$(spread "$T/bt_unw.ns")"
printf 'libgcc / hook per backtrace: %s\n' "$(echo "$bg $bh" | awk '{ printf "%.1fx", $1 / $2 }')"
o=$(median <"$T/off"); h=$(median <"$T/hook"); j=$(median <"$T/je")
printf 'loop, sampling off              %s s %s\n' "$o" "$(spread "$T/off")"
printf "loop, lg 12, jemalloc's unwinder %s s %s\n" "$j" "$(spread "$T/je")"
printf "loop, lg 12, the hook's          %s s %s\n" "$h" "$(spread "$T/hook")"
echo "$h $j $o" | awk '{ printf "hook / jemalloc CPU: %.2f (target <= 0.5); sampling'"'"'s own share: %.2f\n", $1 / $2, ($1 - $3) / ($2 - $3) }'
