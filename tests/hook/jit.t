#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's backtrace at frames it cannot unwind (capture/hook_unwind.c):
# hook-jit-prog allocates from generated code with no unwind information,
# on a foreign stack full of pointer-like garbage with rbp garbage, then
# with wrong unwind information registered for that code (as a JIT's
# tables may be), every allocation sampled. The host survives, its stacks
# end at the generated code's frame, and the profile accounts for every
# block. (libgcc's unwinder, FLAMEKIT_UNWIND=jemalloc, dies of SIGSEGV on
# the registered case: checked by hand, printed below as a comment, never
# a condition of this test.)
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
ON=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:0
alive() { kill -0 "$1" 2>/dev/null; }

port=$(free_port)
U=http://127.0.0.1:$port
check "host started" start_prog "$B/hook-jit-prog" LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON \
	FLAMEKIT_HTTP=127.0.0.1:$port
check "host serves" wait_http "$U/internal/heap/settings"
is "the hook's unwinder is in use" "$(jfield "$(cu "$U/internal/heap/settings")" unwinder)" flamekit
s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true")
like "sampling on" "$s" '"enabled":true'
check "200 allocations from code without unwind information" host_cmd "plain 200" '^done 200$'
check "200 more with wrong unwind information registered" host_cmd "registered 200" '^done 400$'
check "the host is alive" alive "$HOST_PID"
cu "$U/internal/heap?format=raw" >"$T/raw"
is "raw profile is 200" "$(code)" 200
python3 tests/hook/rawframes.py "$T/raw" >"$T/frames"
# The generated code's page is an anonymous mapping: every stack of its
# blocks ends there, after jemalloc's frames.
n=$(awk '$(NF-1) ~ /^\[anon\]\+0x/ { n += $NF } END { print n + 0 }' "$T/frames")
is "400 sampled blocks, each stack ending at the generated code" "$n" 400
d=$(awk '$(NF-1) ~ /^\[anon\]\+0x/ { print NF - 1; exit }' "$T/frames")
check "those stacks are jemalloc's frames and the generated code's (${d:-no} frames)" \
	[ "${d:-99}" -le 6 ]
cu "$U/internal/heap?format=folded" >"$T/folded"
is "folded profile is 200" "$(code)" 200
check "the host is alive after serving" alive "$HOST_PID"
echo quit >&3
exec 3>&-
wait "$HOST_PID"
is "host exits 0" "$?" 0

# Evidence only: the same with jemalloc's own unwinder.
st=$( (ulimit -c 0; printf 'registered 1\nquit\n' | env LD_PRELOAD="$JE" \
	MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 "$B/hook-jit-prog" >/dev/null 2>&1
	echo $?) 2>/dev/null)
echo "# libgcc's unwinder on the registered case: exit status $st"
