#!/bin/sh
# SPDX-License-Identifier: MIT
# A launcher that owns the address (issue 33: pg_ctl start, preloaded with
# the hook, serves FLAMEKIT_HTTP itself; the server it starts either gets
# "Address already in use" or, marked as an exec'd descendant, stays
# quiet, and once the launcher exits the endpoint refuses connections with
# no line saying why). The shape here: a shell preloaded with the hook
# serves, and starts the server with fork and exec.
# 1. A server whose owner mark was cleared (env -u FLAMEKIT_HTTP_OWNER)
#    tries the address: its one line names the launcher that holds it,
#    by pid and command, and what to do.
# 2. A server that stays quiet: when the launcher exits, its one line
#    names the server it started, which has the hook but not the address.
# 3. An address held by a process that did not start the server: the line
#    names that process, with other advice.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
A=127.0.0.1:$port
PRE="$HOOK $JE"

# 1. The launcher starts the server with the owner mark cleared.
cat >"$T/launch1.sh" <<EOF
echo \$\$ >"$T/l1.pid"
env -u FLAMEKIT_HTTP_OWNER "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/server1.err"
EOF
env LD_PRELOAD="$PRE" FLAMEKIT_HTTP=$A sh "$T/launch1.sh" 2>"$T/launcher1.err"
is "1: the launcher exits 0" $? 0
l1=$(cat "$T/l1.pid")
is "1: the server says one line" "$(wc -l <"$T/server1.err")" 1
like "1: it names the launcher, its command, and what to do" "$(cat "$T/server1.err")" \
	"^flamekit-hook: FLAMEKIT_HTTP=$A: cannot listen on $A: Address already in use: process $l1 \\(sh $T/launch1.sh\\), which started this one, holds it: preload the hook into the server alone, or give each its own address\$"
check "1: the launcher says nothing" [ ! -s "$T/launcher1.err" ]

# 2. The server stays quiet (it inherits the owner mark); the launcher
# exits while it runs. bash, not dash: dash leaves with _exit, which runs
# no destructor (pg_ctl returns from main).
rm -f "$T/in2"; mkfifo "$T/in2"
exec 4<>"$T/in2"
cat >"$T/launch2.sh" <<EOF
"$B/hook-alloc-prog" <"$T/in2" >"$T/server2.out" 2>"$T/server2.err" &
echo \$! >"$T/server2.pid"
until grep -q '^ready' "$T/server2.out" 2>/dev/null; do sleep 0.05; done
echo \$\$ >"$T/l2.pid"
EOF
env LD_PRELOAD="$PRE" FLAMEKIT_HTTP=$A bash "$T/launch2.sh" 2>"$T/launcher2.err"
is "2: the launcher exits 0" $? 0
s2=$(cat "$T/server2.pid"); l2=$(cat "$T/l2.pid")
PIDS="$PIDS $s2"
is "2: the launcher says one line" "$(wc -l <"$T/launcher2.err")" 1
like "2: it names itself, the address and the server it started" "$(cat "$T/launcher2.err")" \
	"^flamekit-hook: process $l2 \\(bash $T/launch2.sh\\) exits and stops serving $A; process $s2 \\(hook-alloc-prog\\), which it started, has the hook but leaves the address to it: preload the hook into the server alone, not into the program that starts it\$"
check "2: the server runs" kill -0 "$s2"
check "2: the server says nothing" [ ! -s "$T/server2.err" ]
kill "$s2" 2>/dev/null
exec 4>&-

# 3. Another program holds the address.
start_host "$A"
env -u FLAMEKIT_HTTP_OWNER FLAMEKIT_HTTP=$A LD_PRELOAD="$PRE" "$B/hook-alloc-prog" \
	</dev/null >/dev/null 2>"$T/other.err"
like "3: the line names the holder and another way" "$(cat "$T/other.err")" \
	"^flamekit-hook: FLAMEKIT_HTTP=$A: cannot listen on $A: Address already in use: process $HOST_PID \\(hook-alloc-prog\\) holds it: stop it, or give this program another address\$"
exec 3>&-
wait "$HOST_PID"
echo "1..$tn"
