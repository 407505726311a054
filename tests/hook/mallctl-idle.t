#!/bin/sh
# SPDX-License-Identifier: MIT
# FLAMEKIT_MALLCTL naming the idle copy (issue 22 item 9: empty 200
# profiles, no word): fk-rjem allocates through its own _rjem_ jemalloc;
# with libjemalloc.so.2 preloaded as well and FLAMEKIT_MALLCTL=mallctl,
# the hook serves the preloaded copy, which holds next to nothing. The
# settings' problem, the profile endpoints (409) and one stderr line name
# both copies and the variable's right value.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
port=$(free_port)
U=http://127.0.0.1:$port
check "fk-rjem started" start_prog "$FX/fk-rjem" LD_PRELOAD="$HOOK $JE" FLAMEKIT_MALLCTL=mallctl \
	_RJEM_MALLOC_CONF=prof:true,prof_active:false FLAMEKIT_HTTP=127.0.0.1:$port
check "server answers" wait_http "$U/internal/heap/settings"
check "sampling on" enable "$U" '&lg_sample=14'
check "grows 100 blocks" host_cmd "grow 100" '^grown 100$'
want='FLAMEKIT_MALLCTL=mallctl chose the jemalloc in .*libjemalloc.so.2, which holds [0-9]+ bytes, while the one in .*/fk-rjem \(_rjem_mallctl\) holds [0-9]+: the program allocates through that one, and profiles of this one are nearly empty \(set FLAMEKIT_MALLCTL=_rjem_mallctl\)'
b=$(cu "$U/internal/heap?format=folded")
is "the heap is 409, not an empty 200" "$(code)" 409
like "saying why" "$b" "^$want\$"
cu "$U/debug/pprof/heap" >/dev/null
is "/debug/pprof/heap is 409 too" "$(code)" 409
like "the settings' problem says it" "$(jfield "$(cu "$U/internal/heap/settings")" problem)" "$want"
cu "$U/internal/heap" >/dev/null
is "one stderr line, however many requests" "$(wc -l <"$T/host.err")" 1
like "naming both" "$(cat "$T/host.err")" "^flamekit-hook: $want\$"
check "exits cleanly" stop_host
echo "1..$tn"
