#!/bin/sh
# SPDX-License-Identifier: MIT
# A listener that forks a worker and then execs itself in the same pid,
# as haproxy -W's master does at every start and reload (issue 33 item
# 1). The exec'd image made a group of its own: a worker whose thread
# started after the exec (10 ms) was never listed, and one that had
# joined before it (500 ms) took the address over when its registry
# connection ended, while the exec'd master, alive in the same pid,
# failed with "Address already in use". Now the group keeps its name
# across the exec, the worker rejoins the new image, and no worker
# takes the address from a listener that is alive.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=200

listed() { jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])'; }
lists() { [ "$(listed)" = "$1" ]; }
served_by() { [ "$(jfield "$(cu "$U/internal/heap/settings")" pid)" = "$1" ]; }
has() { cu "$1" >"$T/p"; [ "$(code)" = 200 ] && grep -aq "$2" "$T/p"; }

for ms in 10 500; do
	port=$(free_port); U=http://127.0.0.1:$port
	start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 MALLOC_CONF=lg_prof_sample:14" \
		forkexec "$ms"
	M=$HOST_PID
	check "$ms ms: the master execs itself (generation 2)" wait_count '^ready .* gen 2$' 1
	check "$ms ms: its worker starts" wait_count '^worker ' 1
	W=$(last '^worker ' | awk '{ print $2 }')
	PIDS="$PIDS $W"
	is "$ms ms: the same pid runs generation 2" "$(last '^ready .* gen 2$' | awk '{ print $2 }')" "$M"
	check "$ms ms: the endpoint answers" wait_http "$U/"
	check "$ms ms: the exec'd master serves it" wait_secs 10 served_by "$M"
	pair=$(printf '%s\n' "$M" "$W" | sort -n | tr '\n' ' ' | sed 's/ $//')
	check "$ms ms: the list holds the master and its worker ($pair; it has '$(listed)')" \
		wait_secs 20 lists "$pair"
	s=$(cu "$U/internal/heap/settings?pid=$W")
	is "$ms ms: settings?pid=W: 200" "$(code)" 200
	is "$ms ms: settings?pid=W: the worker answers" "$(jfield "$s" pid)" "$W"
	is "$ms ms: settings?pid=W: listener_pid is the master's" "$(jfield "$s" listener_pid)" "$M"
	r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
	is "$ms ms: POST pid=all reaches both" \
		"$(jpy "$r" '" ".join("%d:%d" % (p["pid"], p["status"]) for p in sorted(d["processes"], key=lambda p: p["pid"]))')" \
		"$(for p in $pair; do printf '%s:200 ' "$p"; done | sed 's/ $//')"
	check "$ms ms: the worker's profile names worker_churn" \
		wait_secs 20 has "$U/internal/heap?format=folded&pid=$W" worker_churn
	check "$ms ms: still served by the master" served_by "$M"
	check "$ms ms: the master still runs" kill -0 "$M"
	check "$ms ms: nothing on stderr ($(head -c 300 "$HOST_ERR" | tr '\n' '|'))" [ ! -s "$HOST_ERR" ]
	hcmd quit '^bye'
	end_host
	is "$ms ms: the master exits 0" "$HOST_ST" 0
	check "$ms ms: the worker ends with it" wait_secs 10 gone "$W"
done
echo "1..$tn"
