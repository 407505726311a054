#!/bin/sh
# SPDX-License-Identifier: MIT
# Another user's bind that blocks a daemon's takeover is said once on
# stderr (issue 32 item 4). A program that calls daemon(3): its first
# process, the listener, exits, and fk-other binds the address and the
# group's registry name (public in /proc/net/unix) before the daemon's
# hook thread starts, 100 ms after its fork (a race it can win with a
# loop that only binds; here the daemon stops itself until it has). The
# daemon's hook tried again every second for ever and said nothing, while
# curl got the squatter's answers. Now it says once who holds them, keeps
# trying, and takes the address over as soon as the squatter goes.
. "$(dirname "$0")/svclib.sh"
if ! other_user; then
	echo "not ok 1 - a second local user: useradd $OTHER failed (the test needs root)"
	exit 1
fi
port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0" daemon1 stop
P=$HOST_PID
check "the program serves before it daemonizes" wait_http "$U/"
G=$(awk -v m="$P" '$8 ~ "^@flamekit-hook/" m "-.*/listener$" { split($8, a, "/"); print a[2]; exit }' /proc/net/unix)
like "the group's name is in /proc/net/unix" "$G" "^$P-"

echo go >&3
check "the daemon starts" wait_secs 10 grep -q '^daemon [0-9]*$' "$HOST_OUT"
D=$(last '^daemon ' | awk '{ print $2 }')
PIDS="$PIDS $D"
check "the first process exits" wait_secs 10 gone "$P"
stopped() { [ "$(awk '{ print $3 }' "/proc/$D/stat" 2>/dev/null)" = T ]; }
check "the daemon stopped itself" wait_secs 10 stopped

# fk-other binds both, then answers every connection to the address with
# a fake profile.
as_other /usr/bin/python3 -c '
import os, socket, sys, time
g, port = sys.argv[1], int(sys.argv[2])
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
r = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for s, a in ((t, ("127.0.0.1", port)), (r, "\0flamekit-hook/%s/listener" % g)):
    s.bind(a)
    s.listen(16)
print("squatted %d" % os.getpid(), flush=True)
while True:
    c, _ = t.accept()
    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nfake\n")
    c.close()' "$G" "$port" >"$T/squat.out" 2>&1 &
PIDS="$PIDS $!"
check "fk-other holds the address and the registry's name" \
	wait_secs 10 grep -q '^squatted' "$T/squat.out"
SQ=$(awk '/^squatted/ { print $2 }' "$T/squat.out")
PIDS="$PIDS $SQ"
kill -CONT "$D"
said() { grep -q 'cannot take over' "$HOST_ERR"; }
check "the daemon says it cannot take over" wait_secs 10 said
line=$(grep 'cannot take over' "$HOST_ERR")
like "naming the address and its holder's uid" "$line" \
	"^flamekit-hook: process $D cannot take over 127\\.0\\.0\\.1:$port: another user holds it \\(uid $OTHER_UID\\)"
like "and the registry's holder" "$line" \
	"the group's registry @flamekit-hook/$G/listener \\(process $SQ, uid $OTHER_UID\\)"
sleep 3
is "once, though it tries every second" "$(grep -c 'cannot take over' "$HOST_ERR")" 1
kill "$SQ"
served() { [ "$(jfield "$(cu "$U/internal/heap/settings")" pid)" = "$D" ]; }
t=$(t0)
check "the squatter gone, the daemon serves the address" wait_secs 20 served
check "within 2 s ($(since "$t") s)" le "$(since "$t")" $((2 + SLACK))
check "and says so" grep -q "process $D now serves 127.0.0.1:$port" "$HOST_ERR"
kill -TERM "$D"
check "TERM ends the daemon" wait_secs 10 gone "$D"
end_host
echo "1..$tn"
