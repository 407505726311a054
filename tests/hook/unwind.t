#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's sampling backtrace (capture/hook_unwind.c) against jemalloc's
# own (libgcc's _Unwind_Backtrace, kept by FLAMEKIT_UNWIND=jemalloc) on the
# same allocations: every allocation sampled (lg_sample 0), deterministic
# call paths, and for each host the folded profiles of the two runs are
# identical, and so are the raw stacks as module+offset once libgcc's
# extra leaf frame (prof_backtrace_impl) is dropped. Hosts: hook-alloc-prog
# (also its churn threads, so stacks other than the main thread's),
# conf-own-prog, the static-jemalloc fixtures fk-jestatic and
# fk-jestatic-rjem (the hook installed through their own mallctl), python3.
# fk-rjem (jemalloc 5.1.0, no experimental.hooks.prof_backtrace) keeps
# jemalloc's and the settings say why; another FLAMEKIT_UNWIND value gives
# the hook's, with one line on stderr.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
ON=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:0

# start_prog with the arguments of $ARGS after the program.
start_prog() {
	prog=$1; shift
	rm -f "$T/in"; mkfifo "$T/in"
	HOST_OUT=$T/host.out; : >"$HOST_OUT"
	env "$@" "$prog" $ARGS <"$T/in" >"$HOST_OUT" 2>"$T/host.err" &
	HOST_PID=$!
	PIDS="$PIDS $HOST_PID"
	exec 3>"$T/in"
	wait_line '^ready'
}
ARGS=

# session TAG PROG CMDS ENV...: runs PROG (hook-alloc-prog's protocol),
# enables sampling (at lg 0 from the start: after a prof.reset each thread
# would first finish the sampling interval it had drawn), sends each
# ;-separated command of CMDS and waits for its answer, then saves
# $T/TAG.settings, .raw and .folded.
session() {
	tag=$1 prog=$2 cmds=$3; shift 3
	port=$(free_port)
	U=http://127.0.0.1:$port
	if ! start_prog "$prog" FLAMEKIT_HTTP=127.0.0.1:$port "$@" || ! wait_http "$U/internal/heap/settings"; then
		notok "$tag: started: $(head -c 300 "$T/host.err")"
		return 1
	fi
	cu "$U/internal/heap/settings" >"$T/$tag.settings"
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
	n=0
	oldifs=$IFS; IFS=';'
	for c in $cmds; do
		IFS=$oldifs
		n=$((n + 1))
		echo "$c" >&3
		# Each command's answer is one line: wait for the n-th.
		retry sh -c "[ \$(wc -l <'$HOST_OUT') -gt $n ]" || { notok "$tag: no answer to '$c'"; return 1; }
	done
	IFS=$oldifs
	cu "$U/internal/heap?format=raw" >"$T/$tag.raw"
	cu "$U/internal/heap?format=folded" | sort >"$T/$tag.folded"
	echo quit >&3
	exec 3>&-
	wait "$HOST_PID"
	st=$?
	is "$tag: exits 0" "$st" 0
	return 0
}

# agree NAME PROG CMDS ENV...: the two unwinders on the same workload.
agree() {
	name=$1 prog=$2 cmds=$3; shift 3
	session "$name.hook" "$prog" "$cmds" "$@" || return 0
	session "$name.je" "$prog" "$cmds" FLAMEKIT_UNWIND=jemalloc "$@" || return 0
	is "$name: settings say the hook's unwinder is in use" \
		"$(jfield "$(cat "$T/$name.hook.settings")" unwinder)" flamekit
	is "$name: FLAMEKIT_UNWIND=jemalloc keeps jemalloc's, and says why" \
		"$(jfield "$(cat "$T/$name.je.settings")" unwinder)" "jemalloc: FLAMEKIT_UNWIND=jemalloc"
	check "$name: the profile has stacks ($(wc -l <"$T/$name.hook.folded"))" [ -s "$T/$name.hook.folded" ]
	if cmp -s "$T/$name.hook.folded" "$T/$name.je.folded"; then
		ok "$name: folded profiles identical"
	else
		notok "$name: folded profiles differ: $(diff "$T/$name.je.folded" "$T/$name.hook.folded" | head -6 | cut -c1-300)"
	fi
	python3 tests/hook/rawframes.py "$T/$name.hook.raw" >"$T/$name.hook.frames"
	python3 tests/hook/rawframes.py --drop-first "$T/$name.je.raw" >"$T/$name.je.frames"
	if cmp -s "$T/$name.hook.frames" "$T/$name.je.frames"; then
		ok "$name: raw stacks identical frame for frame ($(wc -l <"$T/$name.hook.frames") stacks)"
	else
		notok "$name: raw stacks differ: $(diff "$T/$name.je.frames" "$T/$name.hook.frames" | head -4 | cut -c1-300)"
	fi
}

agree hook-alloc-prog "$B/hook-alloc-prog" "grow 20;small 50 48;grow 3" \
	LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON
# The churn threads allocate and free random sizes for a time: their raw
# stacks, not their counts, are compared. "churn 0" joins the earlier
# threads.
session churn.hook "$B/hook-alloc-prog" "churn 1;churn 0;grow 1" LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON &&
session churn.je "$B/hook-alloc-prog" "churn 1;churn 0;grow 1" LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON \
	FLAMEKIT_UNWIND=jemalloc && {
	python3 tests/hook/rawframes.py --no-count "$T/churn.hook.raw" >"$T/churn.hook.set"
	python3 tests/hook/rawframes.py --no-count --drop-first "$T/churn.je.raw" >"$T/churn.je.set"
	# A thread's stack ends in libc's clone3, the main thread's in _start.
	n=$(grep -c ' libc\.so\.6+0x[0-9a-f]*$' "$T/churn.hook.set")
	check "churn threads: their stacks sampled ($n)" [ "$n" -gt 0 ]
	check "churn threads: the same raw stacks with both unwinders" cmp -s "$T/churn.hook.set" "$T/churn.je.set"
}
agree conf-own-prog "$B/conf-own-prog" "grow 20;small 50 48" LD_PRELOAD="$HOOK" MALLOC_CONF=$ON
agree fk-jestatic "$FX/fk-jestatic" "grow 20" LD_PRELOAD="$HOOK" MALLOC_CONF=$ON
agree fk-jestatic-rjem "$FX/fk-jestatic-rjem" "grow 20" LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=$ON
ARGS=tests/hook/python_prog.py
agree python3 /usr/bin/python3.11 "grow 30;grow 5" PYTHONMALLOC=malloc PYTHONHASHSEED=0 \
	LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON
ARGS=

# jemalloc 5.1.0 (the Rust fixture) has no experimental.hooks.prof_backtrace:
# its own unwinder stays, the settings say why, and sampling still works.
session fk-rjem "$FX/fk-rjem" "grow 20" LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=$ON && {
	like "fk-rjem: jemalloc 5.1.0 (it says 0.0.0) keeps its own unwinder, and the settings say why" \
		"$(jfield "$(cat "$T/fk-rjem.settings")" unwinder)" \
		'^jemalloc: jemalloc .*fk-rjem\) has no experimental\.hooks\.prof_backtrace$'
	check "fk-rjem: samples taken with jemalloc's own" grep -q grow "$T/fk-rjem.folded"
}

# Another FLAMEKIT_UNWIND value: the hook's unwinder, and one line that says so.
port=$(free_port)
U=http://127.0.0.1:$port
if start_prog "$B/hook-alloc-prog" FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ON \
	FLAMEKIT_UNWIND=libgcc && wait_http "$U/internal/heap/settings"; then
	is "FLAMEKIT_UNWIND=libgcc: the hook's unwinder" "$(jfield "$(cu "$U/internal/heap/settings")" unwinder)" flamekit
	is "FLAMEKIT_UNWIND=libgcc: one line on stderr" "$(cat "$T/host.err")" \
		"flamekit-hook: FLAMEKIT_UNWIND='libgcc' is neither jemalloc nor flamekit: using flamekit's"
	echo quit >&3
	exec 3>&-
	wait "$HOST_PID"
else
	notok "FLAMEKIT_UNWIND=libgcc: host started"
fi
