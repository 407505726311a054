#!/bin/sh
# SPDX-License-Identifier: MIT
# An enable sent the moment the server first answers sticks (issue 11):
# the hook's start-up either finishes before the first request is served
# or never undoes what a request set. A poller asks for the settings in a
# tight loop from the moment the program starts, POSTs enabled=true at
# once after the first answer, and the settings must still say enabled a
# second later and three seconds later. On python3 (libjemalloc.so.2
# preloaded, as the issue found it) and on two fixtures with jemalloc
# inside them, whose start-up (reading ELF symbol tables) is longer.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
ON=prof:true,prof_active:false

# firstpost PORT: waits (30 s at most) for the first answer at PORT, then
# POSTs enabled=true at once; prints the POST's status and body.
firstpost() {
	python3 - "$1" <<'EOF'
import http.client, sys, time
port = int(sys.argv[1])
deadline = time.monotonic() + 30
while True:
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/internal/heap/settings")
        c.getresponse().read()
        c.close()
        break
    except OSError:
        if time.monotonic() > deadline:
            print("000 nothing answered in 30 s")
            sys.exit(0)
        time.sleep(0.002)
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
c.request("POST", "/internal/heap/settings?enabled=true", headers={"X-Flamekit": "1"})
r = c.getresponse()
print(r.status, r.read().decode(errors="replace").strip())
EOF
}

# race NAME: the checks, once the program serving $port was started in
# the background (its pid in $HOST_PID).
race() {
	name=$1
	U=http://127.0.0.1:$port
	r=$(firstpost "$port")
	is "$name: the first POST is 200" "${r%% *}" 200
	like "$name: the first POST answers enabled" "$r" '"enabled":true'
	sleep 1
	s=$(cu "$U/internal/heap/settings")
	is "$name: a second later, settings still says enabled" "$(jfield "$s" enabled)" true
	sleep 2
	s=$(cu "$U/internal/heap/settings")
	is "$name: three seconds later, still enabled" "$(jfield "$s" enabled)" true
}

port=$(free_port)
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port \
	python3 -c 'import time; time.sleep(8)' 2>"$T/py.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"
race python3
kill "$HOST_PID" 2>/dev/null; wait "$HOST_PID" 2>/dev/null

# race_static PROG CONF: the race on a fixture with jemalloc linked in,
# whose malloc_conf is the variable CONF.
race_static() {
	port=$(free_port)
	spawn_host env LD_PRELOAD="$HOOK" "$2=$ON" FLAMEKIT_HTTP=127.0.0.1:$port "$FX/$1"
	race "$1"
	check "$1: exits cleanly" stop_host
}
race_static fk-jestatic MALLOC_CONF
race_static fk-rjem _RJEM_MALLOC_CONF
