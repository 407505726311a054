#!/bin/sh
# SPDX-License-Identifier: MIT
# Another user cannot make a worker unreachable by taking its socket's
# name (issue 32 item 4). Abstract socket names are listed to every user
# in /proc/net/unix, so fk-other reads the group's name and binds
# @flamekit-hook/GROUP/PID for the next 2000 pids; a worker forked then
# was unreachable (?pid=W: 502, "the socket of process W belongs to
# process S"). Now it serves under another name, registers that one, and
# the list says whose its own name is.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=200
if ! other_user; then
	echo "not ok 1 - a second local user: useradd $OTHER failed (the test needs root)"
	exit 1
fi
port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0" prefork 1
M=$HOST_PID
check "the master's worker and its own worker start" wait_count '^worker ' 2
PIDS="$PIDS $(awk '/^worker / { print $2 }' "$HOST_OUT")"
G=$(awk -v m="$M" '$8 ~ "^@flamekit-hook/" m "-.*/listener$" { split($8, a, "/"); print a[2]; exit }' /proc/net/unix)
like "the group's name is in /proc/net/unix, for every user" "$G" "^$M-"

# The squatter: fk-other binds and listens on the next 2000 pids' names.
: >"$T/squat.out"
as_other /usr/bin/python3 -c '
import os, socket, sys, time
g, first = sys.argv[1], int(sys.argv[2])
held = []
for p in range(first, first + 2000):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind("\0flamekit-hook/%s/%d" % (g, p))
        s.listen(1)
        held.append(s)
    except OSError:
        s.close()
print("squatting %d %d %d" % (os.getpid(), first, first + 1999), flush=True)
time.sleep(600)' "$G" "$(( $(cat /proc/sys/kernel/ns_last_pid) + 1 ))" >"$T/squat.out" 2>&1 &
SQ=$!
PIDS="$PIDS $SQ"
check "fk-other takes the names" wait_secs 20 grep -q '^squatting' "$T/squat.out"
read -r _ SQP A Z <"$T/squat.out"

# A worker forked now: its pid's name is most likely taken (a busy machine
# may fork past the range: then one more).
W=""
for i in 1 2 3 4 5; do
	hcmd spawn '^spawned ' || break
	w=$(last '^spawned ' | awk '{ print $2 }')
	PIDS="$PIDS $w"
	if [ "$w" -ge "$A" ] && [ "$w" -le "$Z" ]; then W=$w; break; fi
done
check "a worker forked with its name taken ($W in $A-$Z)" [ -n "$W" ]
listed() { cu "$U/internal/heap/processes" >"$T/list"; grep -q "\"pid\":$W[,}]" "$T/list"; }
check "it is listed" wait_secs 10 listed
s=$(cu "$U/internal/heap/settings?pid=$W")
is "settings?pid=W: 200 ($(printf '%s' "$s" | head -c 200))" "$(code)" 200
is "answered by the worker itself" "$(jfield "$s" pid)" "$W"
entry() { jpy "$(cat "$T/list")" "[p.get('$1') for p in d['processes'] if p['pid'] == $W][0]"; }
like "the list names its socket, another one" "$(entry socket)" "^@flamekit-hook/$G/$W-[0-9a-f]{16}\$"
like "and says whose its own name is" "$(entry problem)" \
	"name @flamekit-hook/$G/$W was taken by process $SQP of uid $OTHER_UID"
is "its settings are in the list" "$(entry enabled)" false
r=$(post "$U/internal/heap/settings?enabled=true&pid=$W")
is "POST settings?enabled=true&pid=W: 200" "$(code)" 200
is "it samples now" "$(jfield "$r" enabled)" true
kill "$SQ"
echo quit >&3
end_host
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
