#!/bin/sh
# SPDX-License-Identifier: MIT
# FLAMEKIT_AT_EXIT with a real jemalloc program (hook-alloc-prog under the
# hook): the heap written at normal exit as a raw dump with its maps, whole
# (no temporary file left, an old file replaced), sampling turned on by the
# variable alone; nothing on _exit-like deaths; %p; bad values refused at
# start; then heap-check on the file, and the flame graph of what went over.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/hook/hooklib.sh
case "$B" in /*) ;; *) B=$top/$B ;; esac
PATH="$B:$PATH"; HOOK=$B/libflamekit-hook.so
P=$B/hook-alloc-prog
# Sampling every 4 KiB on average, and inactive: the variable turns it on.
CONF=prof:true,prof_active:false,lg_prof_sample:12,prof_accum:true
run() {   # run DUMP INPUT [ENV=VALUE...]: the program under the hook, fed INPUT
	d=$1; in=$2; shift 2
	printf "$in" | env FLAMEKIT_AT_EXIT="$d" MALLOC_CONF=$CONF LD_PRELOAD="$HOOK $JE" "$@" \
		"$P" >"$T/prog.out" 2>"$T/prog.err"
}
cd "$T" || exit 1
mkdir out

# 40 blocks of 64 KiB kept in hog_grow_cache at exit: 2.5 MiB.
echo stale >out/heap.prof
run out/heap.prof 'grow 40\nquit\n'; st=$?
is "the program exits 0" "$st" 0
is "nothing on its stderr" "$(cat "$T/prog.err")" ""
check "the dump is written at exit" [ -s out/heap.prof ]
is "an old file at the path is replaced" "$(head -1 out/heap.prof | cut -c1-8)" "heap_v2/"
is "sampled at jemalloc's rate (lg_prof_sample:12)" "$(head -1 out/heap.prof)" "heap_v2/4096"
check "with its maps" grep -q '^MAPPED_LIBRARIES:' out/heap.prof
is "no temporary file left beside it" "$(ls out)" "heap.prof"
check "stacks were sampled though prof_active was false" grep -q '^@ 0x' out/heap.prof

# heap-check on it: names come from the live files (symbolized here).
heap-check --max-inuse 1MiB out/heap.prof >"$T/r" 2>"$T/e"; st=$?
is "heap-check over 1 MiB exits 1" "$st" 1
like "names hog_grow_cache as the heaviest site" "$(sed -n 3p "$T/r")" '^    2\.[0-9] MiB +[0-9.]+%  hog_grow_cache < hog_outer < main'
inuse=$(sed -n 's/^over  in use: .* (\([0-9]*\) bytes).*/\1/p' "$T/r")
[ "$inuse" -gt 2359296 ] && [ "$inuse" -lt 2883584 ]
check "in use within 10% of the 2.5 MiB kept" [ $? = 0 ]
printf 'hog_grow_cache 2MiB\n* 1MiB\n' >budget
heap-check --budget budget --format junit out/heap.prof >"$T/j.xml" 2>"$T/e"; st=$?
is "budget: hog_grow_cache over 2 MiB exits 1" "$st" 1
check "the JUnit report names it" python3 "$top/tests/check/checklib.py" junit "$T/j.xml" 2 1 "budget line 1 'hog_grow_cache'"
heap-check --max-inuse 3MiB out/heap.prof >"$T/r" 2>&1; st=$?
is "within 3 MiB exits 0" "$st" 0
symbolize out/heap.prof 2>/dev/null | to-folded | grep hog_grow_cache | render-flame >over.svg
check "the flame graph of what went over is valid SVG" xmllint --noout over.svg

# What the program freed is not at exit.
run out/freed.prof 'grow 40\nfree\nquit\n'
heap-check --budget budget out/freed.prof >"$T/r" 2>&1; st=$?
is "freed before exit: within the budget, exit 0" "$st" 0
like "and hog_grow_cache holds nothing" "$(grep "budget line 1" "$T/r")" "no stack matched|: 0 B"

# %p: a file per process, named by its pid.
run 'out/heap.%p.prof' 'grow 1\nquit\n'
pid=$(sed -n 's/^ready //p' "$T/prog.out")
check "%p: the file is named by the pid" [ -s "out/heap.$pid.prof" ]

# A process that does not exit normally writes nothing.
start_prog "$P" FLAMEKIT_AT_EXIT=out/killed.prof MALLOC_CONF=$CONF LD_PRELOAD="$HOOK $JE"
host_cmd "grow 4" '^grown 4'
kill -9 "$HOST_PID"; wait "$HOST_PID" 2>/dev/null
check "killed: no file" [ ! -e out/killed.prof ]
is "and no temporary file" "$(ls out | grep -c tmp)" 0
# exit() from another thread (a service's SIGTERM handling) is normal.
start_prog "$P" FLAMEKIT_AT_EXIT=out/term.prof MALLOC_CONF=$CONF LD_PRELOAD="$HOOK $JE"
host_cmd "grow 4" '^grown 4'
host_cmd termexit '^termexit armed'
kill -TERM "$HOST_PID"; wait "$HOST_PID"; st=$?
is "SIGTERM then exit(0) from a thread: status 0" "$st" 0
check "and the dump is written" grep -q '^MAPPED_LIBRARIES:' out/term.prof

# Exec'd descendants inherit the variable; only with %p do they write.
printf 'grow 1\nquit\n' >cmds
env FLAMEKIT_AT_EXIT="$T/out/desc.prof" MALLOC_CONF=$CONF LD_PRELOAD="$HOOK $JE" \
	sh -c "'$P' <cmds >/dev/null; exit 0" 2>"$T/e"
check "a descendant of the process that read it does not write its file" [ ! -e out/desc.prof ]
env FLAMEKIT_AT_EXIT="$T/out/desc.%p.prof" MALLOC_CONF=$CONF LD_PRELOAD="$HOOK $JE" \
	sh -c "'$P' <cmds; exit 0" >"$T/prog.out" 2>"$T/e"
pid=$(sed -n 's/^ready //p' "$T/prog.out")
check "with %p it writes its own" [ -s "out/desc.$pid.prof" ]

# Bad values: refused at start, one line, the program runs on.
for v in nodir/heap.prof 'heap.%d' 'out/'; do
	run "$v" 'grow 1\nquit\n'; st=$?
	is "FLAMEKIT_AT_EXIT='$v': the program still exits 0" "$st" 0
	like "FLAMEKIT_AT_EXIT='$v': one line naming it" "$(cat "$T/prog.err")" "^flamekit-hook: bad FLAMEKIT_AT_EXIT '$v'"
done
[ ! -e nodir ] && [ ! -e heap.%d ]
check "and nothing is written" [ $? = 0 ]
# A jemalloc that cannot profile: said at start, no file.
run out/noprof.prof 'quit\n' MALLOC_CONF=prof:false
like "prof:false: said at start" "$(cat "$T/prog.err")" "^flamekit-hook: FLAMEKIT_AT_EXIT: .*prof"
check "and no file" [ ! -e out/noprof.prof ]
echo "1..$tn"
