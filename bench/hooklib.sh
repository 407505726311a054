# SPDX-License-Identifier: MIT
# Shared by the bench scripts that run a program under the hook (sourced,
# not run; $B is build unless set). Its median reads standard input: a
# script that also sources bench/lib.sh sources it after this, and gets
# that one.

B=${B:-build}

# hook_bench_init NAME PROG [FILE...]: sets JE (the system's
# libjemalloc.so.2), HOOK ($B's hook library), PROG ($B/PROG), T (a scratch
# folder) and S ($T/s, the host's socket: c's); on exit, kills the host
# whose pid is in HPID (empty: none) and removes T. Exits 1 naming
# bench/NAME.sh when one of the files (those and FILE...) is missing.
hook_bench_init() {
	JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
	HOOK=$B/libflamekit-hook.so
	PROG=$B/$2
	T=$(mktemp -d "/tmp/fk-$1bench.XXXXXX")
	S=$T/s
	HPID=""
	trap '[ -n "$HPID" ] && kill -9 "$HPID" 2>/dev/null; rm -rf "$T"' EXIT
	trap 'exit 1' INT TERM
	name=$1; shift 2
	for f in "$HOOK" "$PROG" "$JE" "$@"; do
		[ -e "$f" ] || { echo "bench/$name.sh: missing $f (run make B=$B)" >&2; exit 1; }
	done
}

# hook_bench_start DIR PROG BITS SECONDS: runs PROG stacks BITS under the
# hook (every allocation sampled, no interval snapshots) listening on
# DIR/s, its stdin a FIFO DIR/in held open on descriptor 3 (close it to
# end the program), and waits until it is ready and listens. Sets HPID and
# S; c then runs curl on the socket, SECONDS at most a request.
hook_bench_start() {
	S=$1/s
	rm -f "$S" "$1/in"
	mkfifo "$1/in"
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP="unix:$S" FLAMEKIT_SNAPSHOT_S=0 \
		MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
		"$2" stacks "$3" <"$1/in" >"$1/out" 2>"$1/err" &
	HPID=$!
	exec 3>"$1/in"
	i=0; while ! grep -q ready "$1/out" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	i=0; while [ ! -S "$S" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	hb_seconds=$4
}
# c ARGS...: curl on the host's socket $S, hb_seconds (120 unless
# hook_bench_start set it) at most.
hb_seconds=120
c() { curl -s --max-time "$hb_seconds" --unix-socket "$S" "$@"; }
# port: a free TCP port on 127.0.0.1.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# median < FILE: the median of one number a line; spread FILE: "[min .. max]".
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "[%s .. %s]", v[1], v[NR] }'; }
