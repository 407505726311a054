#!/bin/sh
# SPDX-License-Identifier: MIT
# A worker that is alive but does not answer (stopped by SIGSTOP, as a
# debugger attached to a PostgreSQL backend or an nginx worker stops it)
# costs the processes list and POST settings?pid=all its 10 s, not the
# request's whole 55 s, and is listed with why rather than left out as if
# it had exited (the list took 55.1 s and left the stopped nginx worker
# out; two stopped workers made both requests 504). The others are
# answered as usual; once continued, the worker answers again.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=300
port=$(free_port)
U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0" prefork 2
M=$HOST_PID
check "the master's 2 workers and the first one's own worker start" wait_count '^worker ' 3
workers=$(awk '/^worker / { print $2 }' "$HOST_OUT" | sort -n | tr '\n' ' ')
PIDS="$PIDS $workers"
listed() { jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])'; }
all_listed() { [ "$(listed)" = "$(printf '%s\n' $M $workers | sort -n | tr '\n' ' ' | sed 's/ $//')" ]; }
check "the list holds the master and its 3 workers" wait_secs 20 all_listed
S=$(echo $workers | cut -d' ' -f1)
kill -STOP "$S"
# field PID KEY: KEY of PID's entry in the list's JSON in $T/list.
field() { jpy "$(cat "$T/list")" "[p.get('$2') for p in d['processes'] if p['pid'] == $1]"; }

t=$(t0)
cu "$U/internal/heap/processes" >"$T/list"
took=$(since "$t")
is "worker $S stopped: the list is 200" "$(code)" 200
check "within its 10 s and some ($took s; the request's own 55 s before)" le "$took" $((10 + 3 * SLACK))
is "the stopped worker is listed" "$(field "$S" pid)" "[$S]"
like "with why it has no settings" "$(field "$S" error)" "process $S did not answer within 10 s"
is "its enabled is unknown" "$(field "$S" enabled)" "[null]"
for w in $workers; do
	[ "$w" = "$S" ] && continue
	is "worker $w answered as usual" "$(field "$w" enabled)" "[false]"
done

t=$(t0)
r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
took=$(since "$t")
is "pid=all with a worker stopped: 200" "$(code)" 200
check "within its 10 s and some ($took s)" le "$took" $((10 + 3 * SLACK))
is "the stopped worker's status is 0" "$(jpy "$r" "[p['status'] for p in d['processes'] if p['pid'] == $S]")" "[0]"
is "every other process was set" \
	"$(jpy "$r" "sorted(set(p['status'] for p in d['processes'] if p['pid'] != $S))")" "[200]"

kill -CONT "$S"
answers() { cu "$U/internal/heap/processes" >"$T/list"; [ "$(field "$S" error)" = "[null]" ]; }
check "continued, worker $S answers again" wait_secs 30 answers
is "and its sampling is as it was (off: pid=all did not reach it)" "$(field "$S" enabled)" "[false]"
echo quit >&3
end_host
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
