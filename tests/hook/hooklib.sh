# SPDX-License-Identifier: MIT
# Shared helpers of tests/hook/*.t (sourced, not run): TAP counters, free
# ports, a preloaded host process driven through a FIFO, bounded curl, and
# a trap that kills every process the test started.
set -u
B=${B:-build}
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
[ -n "$JE" ] || JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
HOOK=$B/libflamekit-hook.so
T=$(mktemp -d /tmp/fk-hooktest.XXXXXX)
tn=0
PIDS=""

cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	exec 3>&- 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { tn=$((tn + 1)); echo "ok $tn - $*"; }
notok() { tn=$((tn + 1)); echo "not ok $tn - $*"; }
# check DESC CMD...: ok when CMD (one command: see scripts/check-tests)
# succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
# is DESC GOT WANT
is() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1: got '$2', want '$3'"; fi; }
# like DESC TEXT PATTERN (grep -E)
like() { if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else notok "$1: '$(printf '%s' "$2" | head -c 300)' does not match /$3/"; fi; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# cu ARGS...: curl bounded in time, printing the body; the status code
# goes to $T/status.
cu() { curl -s -o "$T/body" -w '%{http_code}' --max-time 30 "$@" >"$T/status" 2>/dev/null; cat "$T/body"; }
code() { cat "$T/status"; }

# spawn_as NAME CMD...: runs CMD (a program and its arguments, or env
# with settings first) as the host, in the background: its stdin the FIFO
# $T/in, which fd 3 holds open for commands; its output in HOST_OUT
# ($T/NAME.out), its stderr in $T/NAME.err. Sets HOST_PID.
spawn_as() {
	HOST_OUT=$T/$1.out; : >"$HOST_OUT"
	spawn_err=$T/$1.err; shift
	rm -f "$T/in"; mkfifo "$T/in"
	"$@" <"$T/in" >"$HOST_OUT" 2>"$spawn_err" &
	HOST_PID=$!
	PIDS="$PIDS $HOST_PID"
	exec 3>"$T/in"
}
# spawn_host CMD...: spawn_as host (output in $T/host.out and host.err).
spawn_host() { spawn_as host "$@"; }
# start_as NAME CMD..., start_cmd CMD...: the same, then wait for the
# host's "ready" line; they fail when none comes.
start_as() { spawn_as "$@"; wait_line '^ready'; }
start_cmd() { spawn_as host "$@"; wait_line '^ready'; }

# start_host ADDR [ENV=VALUE...]: runs hook-alloc-prog preloaded with the
# hook (before jemalloc, so its malloc_conf applies) serving ADDR; commands
# go through fd 3. Sets HOST_PID and HOST_OUT.
start_host() {
	addr=$1; shift
	start_cmd env FLAMEKIT_HTTP="$addr" LD_PRELOAD="$HOOK $JE" "$@" "$B/hook-alloc-prog"
}

# start_prog PROG [ENV=VALUE...]: like start_host, for any program that
# speaks hook-alloc-prog's protocol (the fixtures in fixtures/sysroot),
# run with exactly the environment additions given: no LD_PRELOAD or
# FLAMEKIT_HTTP of its own. Sets HOST_PID and HOST_OUT; fails when the
# program prints no "ready" line.
start_prog() { prog=$1; shift; start_cmd env "$@" "$prog"; }

# start_sampled [ENV=VALUE...] PROG [ARG...]: start_cmd of PROG preloaded
# with the hook, every allocation sampled, no interval snapshots, and the
# settings given (which override those), serving a free port: sets port
# and U (its URL); checks "host ready" and "host serves".
start_sampled() {
	port=$(free_port)
	U=http://127.0.0.1:$port
	check "host ready" start_cmd env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port \
		FLAMEKIT_SNAPSHOT_S=0 MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 "$@"
	check "host serves" wait_http "$U/internal/heap/settings"
}

# jfield JSON KEY: the value of KEY in a JSON object: a string bare, true,
# false, a number, "null" when null or absent, "(not JSON)" otherwise.
jfield() {
	printf '%s' "$1" | python3 -c '
import json, sys
try:
    v = json.load(sys.stdin).get(sys.argv[1])
except Exception:
    print("(not JSON)"); sys.exit(0)
print("null" if v is None else json.dumps(v) if isinstance(v, bool) else v)' "$2"
}

# host_cmd CMD PATTERN: sends a command and waits for its answer.
host_cmd() { echo "$1" >&3; wait_line "$2"; }

# WAIT_TENTHS: how long wait_line and wait_http wait, in tenths of a
# second (default 100: 10 s).
WAIT_TENTHS=${WAIT_TENTHS:-100}

# wait_line PATTERN: waits (WAIT_TENTHS) for a line of the host's output.
wait_line() {
	i=0
	while [ $i -lt "$WAIT_TENTHS" ]; do
		grep -Eq -- "$1" "$HOST_OUT" 2>/dev/null && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# wait_http URL: waits (WAIT_TENTHS) until something answers at URL.
wait_http() {
	i=0
	while [ $i -lt "$WAIT_TENTHS" ]; do
		curl -s -o /dev/null --max-time 2 "$@" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# gone PID: the process has exited.
gone() { ! kill -0 "$1" 2>/dev/null; }
# wait_for TENTHS CMD...: runs CMD every tenth of a second until it
# succeeds, at most TENTHS times (the event the caller waits for,
# bounded); retry CMD...: the same, WAIT_TENTHS times.
wait_for() {
	wf_n=$1; shift
	wf_j=0
	while [ $wf_j -lt "$wf_n" ]; do
		"$@" && return 0
		sleep 0.1; wf_j=$((wf_j + 1))
	done
	return 1
}
retry() { wait_for "$WAIT_TENTHS" "$@"; }

stop_host() {
	echo quit >&3 2>/dev/null
	exec 3>&-
	i=0
	while kill -0 "$HOST_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$HOST_PID" 2>/dev/null; then kill -9 "$HOST_PID"; return 1; fi
	wait "$HOST_PID"
}

enable() { cu -X POST -H 'X-Flamekit: 1' "$1/internal/heap/settings?enabled=true${2:-}" >/dev/null; }

# other_user: makes the system user fk-other once (any test may call it;
# two at once are fine), a second local user for the tests of what another
# user can do, and sets OTHER_UID and OTHER_GID. Needs root: returns 1
# when the user is not there and cannot be made.
OTHER=fk-other
other_user() {
	if ! id -u "$OTHER" >/dev/null 2>&1; then
		# Another test may have made it meanwhile: then useradd fails.
		useradd --system --no-create-home --shell /usr/sbin/nologin "$OTHER" \
			>/dev/null 2>&1 || id -u "$OTHER" >/dev/null 2>&1 || return 1
	fi
	OTHER_UID=$(id -u "$OTHER") && OTHER_GID=$(id -g "$OTHER")
}
# as_other CMD...: runs CMD as that user, with no supplementary group
# (other_user first). Its files are the caller's to redirect: $T is not
# that user's to read, nor root's pyenv shims: run /usr/bin/python3.
as_other() { setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups "$@"; }
# AS_OTHER: the same as a command prefix (svclib.sh's RUN_AS); cu_other:
# cu as that user.
AS_OTHER="setpriv --reuid=$OTHER --regid=$OTHER --clear-groups"
cu_other() {
	as_other curl -s -o - -w '%{stderr}%{http_code}' --max-time 30 "$@" >"$T/body" 2>"$T/status"
	cat "$T/body"
}

# py EXPR: evaluates a Python expression over JSON on stdin (d); "null"
# when it cannot (a figure missing).
py() { python3 -c "
import json, sys
try:
    d = json.load(sys.stdin); v = $1
except Exception:
    v = None
print('null' if v is None else v)"; }
# num V: V is a whole number (of bytes, say).
num() { case $1 in ''|*[!0-9]*) return 1;; esac; }

# page_meta ID FILE: the text of the flame page FILE's <metadata id="ID">
# (its origin: fkinfo, its columns: fkcols), unescaped, without blank
# lines.
page_meta() {
	python3 -c 'import html, re, sys
m = re.search("<metadata id=\"%s\">(.*?)</metadata>" % sys.argv[1], open(sys.argv[2]).read(), re.S)
print("\n".join(l for l in html.unescape(m.group(1) if m else "").split("\n") if l))' "$1" "$2"
}

# page_info KEY FILE: the value of KEY in the flame page FILE's origin.
page_info() { page_meta fkinfo "$2" | sed -n "s/^$1=//p"; }
