#!/bin/sh
# SPDX-License-Identifier: MIT
# A window of a worker (?seconds=N&pid=W) longer than the proxy's own
# 55 s: the listener waits the window's N seconds on top of its time for
# a worker's answer, so the window (1 to 3600 s on every process) comes
# back whole rather than as a 502 "did not answer within 55 s" (what
# /debug/pprof/allocs?seconds=58&pid=W of an nginx worker answered). The
# listener serves other requests meanwhile. Takes about a minute: the
# window must outlast the 55 s.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=300
port=$(free_port)
U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 MALLOC_CONF=lg_prof_sample:14" prefork 1
check "the master and its worker start" wait_count '^worker ' 1
W=$(awk '/^worker / { print $2; exit }' "$HOST_OUT")
PIDS="$PIDS $W"
joined() { case " $(jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])') " in *" $W "*) return 0 ;; esac; return 1; }
check "the worker joins the list" wait_secs 20 joined
post "$U/internal/heap/settings?enabled=true&pid=all" >/dev/null
is "sampling on everywhere" "$(code)" 200

secs=58
t=$(t0)
curl -s -o "$T/win.pb.gz" -w '%{http_code}' --max-time 120 \
	"$U/debug/pprof/allocs?seconds=$secs&pid=$W" >"$T/win.status" 2>/dev/null &
WIN=$!
PIDS="$PIDS $WIN"
# The window is open in the worker before the listener is asked again.
open_in_worker() { [ "$(jfield "$(cu "$U/internal/heap/settings?pid=$W")" windows_open)" = 1 ]; }
check "the worker holds the window open" wait_secs 20 open_in_worker
cu "$U/internal/heap/settings" >/dev/null
is "the listener answers meanwhile" "$(code)" 200
check "the window's answer comes" wait_secs 100 gone "$WIN"
wait "$WIN"
took=$(since "$t")
is "a ${secs} s window of the worker: 200 (in $took s)" "$(cat "$T/win.status")" 200
check "after the whole window" le "$secs" "$took"
raw=$(go tool pprof -raw "$T/win.pb.gz" 2>&1)
like "go tool pprof reads it: a window of $secs s" "$raw" "Duration: (${secs}|$((secs - 1)))\\."
like "of the worker's allocations" "$raw" 'worker_churn'
echo quit >&3
end_host
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
