#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's life cycle and environment: nothing without FLAMEKIT_HTTP,
# 503 sentences without jemalloc or without prof:true, the LD_PRELOAD
# order and MALLOC_CONF, fork and exec'd children, the signal dump, and
# the C API of a program that links the library.
. "$(dirname "$0")/hooklib.sh"

# 1. Without FLAMEKIT_HTTP the hook does nothing: no thread, no output.
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/quiet.out
env LD_PRELOAD="$HOOK $JE" "$B/hook-alloc-prog" <"$T/in" >"$HOST_OUT" 2>"$T/quiet.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"; exec 3>"$T/in"
wait_line '^ready'
is "no FLAMEKIT_HTTP: one thread only" "$(ls /proc/$HOST_PID/task | wc -l)" 1
stop_host
check "no FLAMEKIT_HTTP: nothing on stderr" [ ! -s "$T/quiet.err" ]

# 2. No jemalloc in the process: 503 with what to do.
port=$(free_port); U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/nojem.out
env FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$HOOK" "$B/hook-alloc-prog" <"$T/in" >"$HOST_OUT" 2>"$T/nojem.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"; exec 3>"$T/in"
wait_line '^ready'; wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
like "no jemalloc: settings says so" "$s" '"jemalloc":false.*"problem":"jemalloc not found'
b=$(cu "$U/internal/heap")
is "no jemalloc: heap is 503" "$(code)" 503
like "no jemalloc: the 503 says to preload libjemalloc" "$b" 'LD_PRELOAD="libflamekit-hook.so libjemalloc.so.2"'
like "no jemalloc: the 503 says where it looked" "$b" 'exported symbols or in the symbol tables of its executable and libraries'

cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "no jemalloc: enabling is 503" "$(code)" 503
check "no jemalloc: host unharmed" host_cmd "grow 10" '^grown 10'
stop_host

# 3. jemalloc without prof:true (MALLOC_CONF overrides the hook's default).
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=prof:false
wait_http "$U/"
b=$(cu "$U/internal/heap")
is "prof:false: heap is 503" "$(code)" 503
like "prof:false: the 503 says to restart with prof:true" "$b" 'MALLOC_CONF=prof:true'
like "prof:false: settings says compiled, not started" "$(cu "$U/internal/heap/settings")" '"profiling_compiled":true,"profiling_started":false'
stop_host

# 4. jemalloc first in LD_PRELOAD: the hook's malloc_conf is not seen.
port=$(free_port); U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/order.out
env FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$JE $HOOK" "$B/hook-alloc-prog" <"$T/in" >"$HOST_OUT" 2>/dev/null &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"; exec 3>"$T/in"
wait_line '^ready'; wait_http "$U/"
like "jemalloc before the hook, no MALLOC_CONF: not started" "$(cu "$U/internal/heap/settings")" '"profiling_started":false'
stop_host
port=$(free_port); U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/order2.out
env FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$JE $HOOK" MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:12 \
	"$B/hook-alloc-prog" <"$T/in" >"$HOST_OUT" 2>/dev/null &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"; exec 3>"$T/in"
wait_line '^ready'; wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
like "jemalloc first with MALLOC_CONF: started, inactive" "$s" '"enabled":false.*"profiling_started":true'
like "MALLOC_CONF's lg_prof_sample wins" "$s" '"lg_sample":12'
enable "$U"
host_cmd "grow 10" '^grown 10'
cu "$U/internal/heap?format=folded" >"$T/f"
check "jemalloc first with MALLOC_CONF: profiles work" grep -q hog_grow_cache "$T/f"
stop_host

# 5. fork: the child becomes a worker of the program: a hook thread of
# its own, in a descriptor table of its own (the child's /proc/PID/fd holds
# no socket of the hook's), listed by the parent; once the parent is gone
# it serves the address itself.
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
wait_http "$U/"
host_cmd fork '^forked'
child=$(awk '/^forked/ { print $2 }' "$HOST_OUT")
PIDS="$PIDS $child"
cu "$U/internal/heap/settings" >/dev/null
is "parent still serves after fork" "$(code)" 200
listed() { cu "$U/internal/heap/processes" | grep -q "\"pid\":$child,"; }
check "the forked child is listed as a worker" retry listed
check "the parent's server thread is named flamekit-hook" grep -qx flamekit-hook /proc/$HOST_PID/task/*/comm
check "the worker's thread is named flamekit-hook" grep -qx flamekit-hook /proc/$child/task/*/comm
n=$(ls -l /proc/$child/fd /proc/$HOST_PID/fd 2>/dev/null | grep -c 'socket:')
is "no socket of the hook's in the host's descriptor tables" "$n" 0
stop_host
check "child still alive after the parent exits" kill -0 "$child"
serves_child() { [ "$(jfield "$(cu "$U/internal/heap/settings")" pid)" = "$child" ]; }
check "the worker serves the address once the parent is gone" retry serves_child
kill "$child" 2>/dev/null

# 6. exec'd children inherit LD_PRELOAD and FLAMEKIT_HTTP but do not bind.
port=$(free_port); U=http://127.0.0.1:$port
env FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$HOOK $JE" sh -c \
	"\"$B/hook-alloc-prog\" </dev/null >\"$T/child.out\" 2>\"$T/child.err\"; sleep 3" 2>"$T/parent.err" &
sp=$!; PIDS="$PIDS $sp"
wait_http "$U/"
sleep 0.5
check "the exec'd child ran" grep -q '^bye' "$T/child.out"
check "the exec'd child did not try to bind (no error)" [ ! -s "$T/child.err" ]
cu "$U/internal/heap?format=raw" >/dev/null
is "the owner (the shell) serves" "$(code)" 409
kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
# exec without fork keeps the pid: the new image owns the address.
port=$(free_port); U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/exec.out
env FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$HOOK $JE" sh -c "exec \"$B/hook-alloc-prog\"" <"$T/in" >"$HOST_OUT" 2>"$T/exec.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"; exec 3>"$T/in"
wait_line '^ready'
check "a program exec'd in place serves" wait_http "$U/"
enable "$U"; host_cmd "grow 5" '^grown 5'
cu "$U/internal/heap?format=raw" >"$T/x"
check "and the dump is of the exec'd program" grep -q 'hook-alloc-prog' "$T/x"
stop_host
check "exec in place: nothing on stderr" [ ! -s "$T/exec.err" ]

# 7. FLAMEKIT_DUMP_SIGNAL=USR2 writes dumps into FLAMEKIT_DUMP_DIR.
mkdir "$T/dumps"
start_as sig env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14 \
	FLAMEKIT_DUMP_SIGNAL=USR2 FLAMEKIT_DUMP_DIR="$T/dumps" "$B/hook-alloc-prog"
host_cmd "grow 30" '^grown 30'
kill -USR2 "$HOST_PID"
i=0; while [ ! -s "$T/dumps/flamekit.$HOST_PID.0.heap" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "USR2 wrote flamekit.PID.0.heap" [ -s "$T/dumps/flamekit.$HOST_PID.0.heap" ]
check "the signal dump is a valid dump" "$B/jeprof-raw" --check "$T/dumps/flamekit.$HOST_PID.0.heap"
"$B/symbolize" "$T/dumps/flamekit.$HOST_PID.0.heap" 2>/dev/null | "$B/to-folded" >"$T/sigf" 2>/dev/null
check "the signal dump names hog_grow_cache" grep -q hog_grow_cache "$T/sigf"
kill -USR2 "$HOST_PID"; sleep 0.3; kill -USR2 "$HOST_PID"
i=0; while [ ! -s "$T/dumps/flamekit.$HOST_PID.2.heap" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "every signal gives a dump (3 in all)" [ "$(ls "$T/dumps" | grep -c '\.heap$')" = 3 ]
check "no temporary files left" [ "$(ls "$T/dumps" | grep -c tmp)" = 0 ]
check "host survived the signals" host_cmd "grow 1" '^grown 31'
stop_host
check "signal dumps: nothing on stderr" [ ! -s "$T/sig.err" ]
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_DUMP_SIGNAL=KILL "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/badsig.err"
like "a bad signal name is one stderr line" "$(cat "$T/badsig.err")" "^flamekit-hook: bad FLAMEKIT_DUMP_SIGNAL 'KILL'"

# 8. The C API, from a program linking -lflamekit-hook.
port=$(free_port)
"$B/hook-api-prog" 127.0.0.1:$port >"$T/api" 2>"$T/api.err"
is "API program exit status" "$?" 0
a() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$T/api"; }
is "fk_hook_start" "$(a start)" 0
is "a second fk_hook_start fails" "$(a start_again)" "-1"
is "linked: the library's malloc_conf started profiling" "$(a before.started)" 1
is "inactive at start" "$(a before.active)" 0
is "serving" "$(a before.serving)" 1
like "dump before anything was sampled fails" "$(a dump_inactive)" '^-1 nothing has been sampled since the program started'
is "fk_hook_set_mallctl(NULL) fails" "$(a set_mallctl_null)" "-1 no mallctl function given"
is "fk_hook_set_mallctl(mallctl)" "$(a set_mallctl)" 0
is "fk_hook_set_active(1, 12)" "$(a activate)" 0
is "active" "$(a active.active)" 1
is "lg_sample 12" "$(a active.lg_sample)" 12
is "activation time known" "$(a active.since)" yes
like "unknown format refused" "$(a dump_badformat)" "^-1 unknown format 'nonsense'"
is "fk_hook_dump raw" "$(a dump_raw)" 0
f=$(a dump_file); rm_later=$f
"$B/symbolize" "$f" 2>/dev/null | "$B/to-folded" >"$T/apif" 2>/dev/null
check "the API's dump names api_site_alloc" grep -q 'api_site_alloc' "$T/apif"
rm -f "$rm_later"
is "one dump counted" "$(a after.dumps)" 1
is "deactivated" "$(a after.active)" 0
is "fk_hook_dump after deactivating serves what was sampled" "$(a dump_after_off)" 0
is "fk_hook_stop stops serving" "$(a stopped.serving)" 0
check "API program: nothing on stderr" [ ! -s "$T/api.err" ]
