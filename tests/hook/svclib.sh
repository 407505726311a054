# SPDX-License-Identifier: MIT
# Helpers of the tests of the hook on services' shapes (closefds.t, fork.t,
# workers.t, daemon.t, state.t, varnish.t), sourced after hooklib.sh: a
# preloaded hook-fork-prog, waits counted in lines, the host's and the
# hook's file tables, JSON fields, a CPU load, elapsed time.
. "$(dirname "$0")/hooklib.sh"
# Absolute, so that children in other directories load the hook too.
case $HOOK in /*) ;; *) HOOK=$(pwd)/$HOOK ;; esac
FP=$B/hook-fork-prog
[ -x "$FP" ] || { echo "not ok 1 - $FP is not built (make)"; exit 1; }

# python3 -c "$CLEAN" CMD...: runs CMD (exec'd, in the same pid) with no
# descriptor above 2, whatever the harness leaked into the test, so a test
# knows the host's whole file table.
CLEAN='import os, sys; os.closerange(3, 1 << 16); os.execvp(sys.argv[1], sys.argv[1:])'

# start_fp "ENV=VALUE..." ARGS...: runs hook-fork-prog ARGS preloaded with
# the hook (then jemalloc) and the environment additions given (words, no
# spaces in a value); commands go through fd 3. Sets HOST_PID and
# HOST_OUT; fails when no "ready" line comes. RUN_AS: a command the
# host runs under (as_other's setpriv, to run it as the second user).
start_fp() {
	envs=$1; shift
	rm -f "$T/in"; mkfifo "$T/in"
	HOST_OUT=$T/host.out; : >"$HOST_OUT"
	HOST_ERR=$T/host.err; : >"$HOST_ERR"
	# shellcheck disable=SC2086
	python3 -c "$CLEAN" ${RUN_AS:-} env LD_PRELOAD="$HOOK $JE" $envs "$FP" "$@" <"$T/in" >"$HOST_OUT" 2>"$HOST_ERR" &
	HOST_PID=$!
	PIDS="$PIDS $HOST_PID"
	exec 3>"$T/in"
	wait_line '^ready'
}

# nlines PATTERN: how many lines of the host's output match.
nlines() { grep -Ec -- "$1" "$HOST_OUT" 2>/dev/null; }
# last PATTERN: the last line of the host's output that matches.
last() { grep -E -- "$1" "$HOST_OUT" 2>/dev/null | tail -n 1; }

# wait_count PATTERN N: waits (WAIT_TENTHS) until N lines match; gives up
# early when HOST_PID has exited and the lines are not there.
wait_count() {
	i=0
	while [ $i -lt "$WAIT_TENTHS" ]; do
		[ "$(nlines "$1")" -ge "$2" ] && return 0
		kill -0 "$HOST_PID" 2>/dev/null || { [ "$(nlines "$1")" -ge "$2" ]; return; }
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# hcmd CMD PATTERN: sends CMD and waits for one more line matching PATTERN
# than there was before, so that a command sent twice waits twice.
hcmd() {
	n0=$(nlines "$2")
	echo "$1" >&3 2>/dev/null || return 1
	wait_count "$2" $((n0 + 1))
}

# get_many N URLFN: N GET requests over a few connections of one curl,
# the K-th (from 0) to the URL the function URLFN prints for K; prints how
# many were answered 200.
get_many() {
	k=0 urls=""
	while [ $k -lt "$1" ]; do
		urls="$urls -o /dev/null $("$2" $k)"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	curl -s --max-time 60 -w '%{http_code}\n' $urls 2>/dev/null | grep -c '^200$'
}

# fd_list PID [TID]: the descriptor numbers of PID's file table (of its
# thread TID when given), sorted, on one line.
fd_list() {
	d=/proc/$1/fd
	[ $# -gt 1 ] && d=/proc/$1/task/$2/fd
	ls "$d" 2>/dev/null | sort -n | tr '\n' ' ' | sed 's/ $//'
}
# fd_links PID [TID]: "N -> LINK" for each descriptor, for messages.
fd_links() {
	d=/proc/$1/fd
	[ $# -gt 1 ] && d=/proc/$1/task/$2/fd
	for f in "$d"/*; do printf '%s->%s ' "${f##*/}" "$(readlink "$f" 2>/dev/null)"; done
}
# hook_tids PID: the threads of PID named flamekit-hook.
hook_tids() {
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = flamekit-hook ] && echo "${t##*/}"
	done
}

# jpy JSON EXPR: EXPR, a Python expression over the parsed JSON d, printed
# (JSON for booleans, lists, dicts and None); "(not JSON)" or "(error ...)".
jpy() {
	printf '%s' "$1" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    print("(not JSON)"); sys.exit(0)
try:
    v = eval(sys.argv[1])
except Exception as e:
    print("(error %s: %s)" % (type(e).__name__, e)); sys.exit(0)
print(json.dumps(v) if isinstance(v, (bool, list, dict)) or v is None else v)' "$2"
}

# load2: two busy loops, the CPU load of a loaded 2-core machine, for the
# rest of the test (the trap kills them).
load2() {
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		PIDS="$PIDS $!"
	done
}

# SLACK: the seconds a "within 2 s" check allows. The tests run on 2
# shared cores whose load average reaches 10 (a poll's own curl then takes
# a second): a takeover or join that comes at all comes well within it,
# one that waits for a timeout of its own does not.
SLACK=${FK_SLACK:-5}

# t0 / since T0: seconds since a time taken with t0, one decimal.
t0() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# le A B: A <= B, as numbers.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# post URL-TAIL: a POST with the header every POST needs; body on stdout.
post() { cu -X POST -H 'X-Flamekit: 1' "$1"; }

# cu as hooklib.sh's, quiet when nothing answered (a dead endpoint is what
# these tests look for) and never showing an earlier request's body.
cu() {
	rm -f "$T/body"
	curl -s -o "$T/body" -w '%{http_code}' --max-time 30 "$@" >"$T/status" 2>/dev/null
	cat "$T/body" 2>/dev/null
}

# wait_secs SECONDS CMD...: runs CMD every tenth of a second until it
# succeeds or SECONDS of wall time have passed (a cap that a loaded
# machine's slow loop does not stretch).
wait_secs() {
	wend=$(( $(date +%s) + $1 )); shift
	while :; do
		"$@" && return 0
		[ "$(date +%s)" -ge "$wend" ] && return 1
		sleep 0.1
	done
}

# end_host: closes the host's input, waits (10 s) for it to exit and sets
# HOST_ST to its exit status, or kills it and sets HOST_ST=killed.
end_host() {
	exec 3>&- 2>/dev/null
	if wait_secs 10 gone "$HOST_PID"; then
		wait "$HOST_PID"; HOST_ST=$?
	else
		kill -9 "$HOST_PID" 2>/dev/null; wait "$HOST_PID" 2>/dev/null; HOST_ST=killed
	fi
}

# nogrep PATTERN FILE: FILE has no line matching PATTERN (and exists).
nogrep() { [ -e "$2" ] && ! grep -q -- "$1" "$2"; }

# hold_conns PORT PATH PAD: 40 connections to PORT, each halfway through
# a GET of PATH with PAD bytes of headers (hold_conns.py), kept open until
# fd 4 is closed; sets HOLD. Then wait with: check ... wait_secs 20 held.
hold_conns() {
	rm -f "$T/hold.in" "$T/hold.out"; mkfifo "$T/hold.in"
	python3 "$(dirname "$0")/hold_conns.py" "$1" "$2" "$3" "$T/hold.out" <"$T/hold.in" &
	HOLD=$!
	PIDS="$PIDS $HOLD"
	exec 4>"$T/hold.in"
}
held() { grep -q held "$T/hold.out" 2>/dev/null; }

# start_prefork PORT: hook-fork-prog serving 127.0.0.1:PORT with 2
# pre-forked workers, the first with a worker of its own; sets U, M (the
# master) and workers (the 3 workers' pids, sorted), and checks that they
# start and that the processes list holds the 4 of them.
start_prefork() {
	U=http://127.0.0.1:$1
	start_fp "FLAMEKIT_HTTP=127.0.0.1:$1 FLAMEKIT_SNAPSHOT_S=0" prefork 2
	M=$HOST_PID
	check "the master's 2 workers and the first one's own worker start" wait_count '^worker ' 3
	workers=$(awk '/^worker / { print $2 }' "$HOST_OUT" | sort -n | tr '\n' ' ')
	PIDS="$PIDS $workers"
	check "the list holds the master and its 3 workers" wait_secs 20 prefork_listed
}
prefork_listed() {
	[ "$(jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])')" = \
	  "$(printf '%s\n' $M $workers | sort -n | tr '\n' ' ' | sed 's/ $//')" ]
}
