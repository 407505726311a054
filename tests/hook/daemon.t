#!/bin/sh
# SPDX-License-Identifier: MIT
# Daemons (issue 20 item 3): a program that forks, lets its parent exit,
# calls setsid and forks again, or calls daemon(3), has its endpoint back
# on the same address within 2 s, served by the surviving process; the
# settings say which pid serves and one line on stderr says it. Then the
# real one: nghttpd -D.
. "$(dirname "$0")/svclib.sh"

# pid_of_server: the "pid" of the settings at $U.
pid_of_server() { jfield "$(cu "$U/internal/heap/settings")" pid; }
served_by() { [ "$(pid_of_server)" = "$1" ]; }
answers() { curl -s -o /dev/null --max-time 2 "$U/"; }
silent() { curl -s -o /dev/null --max-time 3 "$U/"; [ $? = 7 ]; }
has_line() { grep -Eq -- "$1" "$HOST_OUT"; }
has() { cu "$1" >"$T/p"; [ "$(code)" = 200 ] && grep -aq "$2" "$T/p"; }

# 1. hook-fork-prog daemon (fork, exit(3), setsid, fork, _exit) and daemon1
#    (glibc's daemon(3): fork, _exit, setsid).
for mode in daemon daemon1; do
	port=$(free_port); U=http://127.0.0.1:$port
	start_fp "FLAMEKIT_HTTP=127.0.0.1:$port MALLOC_CONF=lg_prof_sample:14" $mode
	P=$HOST_PID
	check "$mode: the program serves before it daemonizes" wait_http "$U/"
	is "$mode: settings pid is the program's" "$(pid_of_server)" "$P"
	echo go >&3
	check "$mode: the daemon starts" wait_secs 10 has_line '^daemon [0-9]+$'
	D=$(last '^daemon ' | awk '{ print $2 }')
	PIDS="$PIDS $D"
	check "$mode: the program's first process exits" wait_secs 10 gone "$P"
	t=$(t0)
	# Timed with curl alone: a python per poll would add its own start-up.
	check "$mode: the endpoint is back" wait_secs 10 answers
	took=$(since "$t")
	check "$mode: within 2 s of the parent's exit (took $took s; up to $SLACK s allowed on a loaded machine)" \
		le "$took" "$SLACK"
	check "$mode: served by the daemon $D (it says '$(pid_of_server)')" wait_secs 10 served_by "$D"
	s=$(cu "$U/internal/heap/settings")
	is "$mode: listener_pid is the daemon's" "$(jfield "$s" listener_pid)" "$D"
	enable "$U"
	is "$mode: the daemon turns sampling on" "$(code)" 200
	check "$mode: the daemon's profile names daemon_churn" \
		wait_secs 20 has "$U/internal/heap?format=folded" daemon_churn
	n=$(grep -c '^flamekit-hook:' "$HOST_ERR")
	is "$mode: one line on stderr from the hook ($(head -c 300 "$HOST_ERR" | tr '\n' '|'))" "$n" 1
	like "$mode: it names the pid that serves now" "$(grep '^flamekit-hook:' "$HOST_ERR")" "[^0-9]$D([^0-9]|\$)"
	kill -TERM "$D"
	check "$mode: TERM ends the daemon" wait_secs 10 gone "$D"
	check "$mode: then nothing listens" wait_secs 10 silent
	end_host
	is "$mode: the first process exited 0" "$HOST_ST" 0
done

# 2. nghttpd -D: it daemonizes (and goes to /) before serving HTTP/2 from
#    the directory -d names.
port=$(free_port); hport=$(free_port); U=http://127.0.0.1:$port
mkdir "$T/htdocs"; echo hello >"$T/htdocs/index.html"
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port \
	nghttpd -D -d "$T/htdocs" --no-tls -a 127.0.0.1 "$hport" >"$T/ng.out" 2>"$T/ng.err" &
NP=$!
PIDS="$PIDS $NP"
check "nghttpd -D: its first process exits" wait_secs 20 gone "$NP"
wait "$NP"; st=$?
is "nghttpd -D: the first process exits 0 ($(head -c 200 "$T/ng.err"))" "$st" 0
h2() { curl -s -o /dev/null --max-time 3 --http2-prior-knowledge "http://127.0.0.1:$hport/"; }
check "nghttpd -D: the daemon serves HTTP/2" wait_secs 20 h2
served() { [ -n "$(pid_of_server | grep -E '^[0-9]+$')" ]; }
check "nghttpd -D: the endpoint is back" wait_secs 10 served
ND=$(pid_of_server)
case $ND in '' | *[!0-9]*) ND=$(fuser -n tcp "$hport" 2>/dev/null | tr -d ' ') ;; esac
PIDS="$PIDS $ND"
is "nghttpd -D: the settings name the daemon, an nghttpd" "$(cat /proc/"$ND"/comm 2>/dev/null)" nghttpd
check "nghttpd -D: it is not the first process" sh -c '[ -n "$1" ] && [ "$1" != "$2" ]' _ "$ND" "$NP"
enable "$U"
is "nghttpd -D: sampling on" "$(code)" 200
for i in 1 2 3 4 5 6 7 8; do h2; done
cu "$U/debug/pprof/heap" >"$T/ng.pb"
is "nghttpd -D: /debug/pprof/heap answers" "$(code)" 200
if [ -n "$ND" ]; then
	kill -TERM "$ND"
	check "nghttpd -D: TERM ends it" wait_secs 10 gone "$ND"
else
	notok "nghttpd -D: no process listens on $hport"
fi
