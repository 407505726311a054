#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's ?format=flame builds its tree from the symbolized profile,
# never writing folded text (capture/serve_profile.c, write_flame): its
# page must be the bytes the tools draw from the same heap, that is
# `symbolize | to-folded --columns | render-flame` on the hook's own raw
# dump after the page's origin as '# info:' lines, with each page option
# given as render-flame's. The origin names this host process (program,
# pid, host), the time of the request and the sample period; the columns
# are the four heap sample types. On the fixture host (hook-alloc-prog)
# and on 2^10 distinct stacks (hook-bench-prog).
. "$(dirname "$0")/hooklib.sh"

# same NAME QUERY RENDER-OPTS...: the hook's page for QUERY equals the
# tools' on $T/folded after the page's own origin.
same() {
	name=$1 q=$2; shift 2
	cu "$U/internal/heap?format=flame$q" >"$T/hook.svg"
	is "$name: 200" "$(code)" 200
	page_meta fkinfo "$T/hook.svg" | sed 's/^/# info: /' | cat - "$T/folded" >"$T/input"
	"$B/render-flame" "$@" "$T/input" >"$T/tools.svg"
	check "$name: the tools' page, byte for byte" cmp -s "$T/hook.svg" "$T/tools.svg"
}

# origin NAME PID PERIOD: the page $T/hook.svg names process PID, this
# host, a time of this test and sample period PERIOD, and has the four
# heap sample types as its columns.
origin() {
	is "$1: the program" "$(page_info program "$T/hook.svg")" "$(readlink "/proc/$2/exe")"
	is "$1: the pid" "$(page_info pid "$T/hook.svg")" "$2"
	is "$1: the host" "$(page_info host "$T/hook.svg")" "$(hostname)"
	t=$(page_info time "$T/hook.svg")
	check "$1: the time of the request ($t, test started $T0)" \
		sh -c '[ "$1" -ge "$2" ] && [ "$1" -le "$(date +%s)" ]' _ "$t" "$T0"
	is "$1: the sample period" "$(page_info sample_period "$T/hook.svg")" "$3"
	is "$1: the time comes first (a kept page is stamped there)" \
		"$(page_meta fkinfo "$T/hook.svg" | sed -n 1p | cut -d= -f1)" time
	is "$1: four columns" "$(page_meta fkcols "$T/hook.svg")" \
		"inuse_space/bytes inuse_objects/count alloc_space/bytes alloc_objects/count"
}

# pages NAME PID PERIOD: the raw dump, its folded stacks by the tools, then
# the pages.
pages() {
	cu "$U/internal/heap?format=raw" >"$T/raw"
	is "$1: raw dump is 200" "$(code)" 200
	"$B/symbolize" "$T/raw" | "$B/to-folded" >"$T/folded"
	check "$1: the tools fold the dump" [ -s "$T/folded" ]
	cu "$U/internal/heap?format=folded" >"$T/hook.folded"
	check "$1: the hook's folded text is the tools' (the same heap)" cmp -s "$T/hook.folded" "$T/folded"
	"$B/symbolize" "$T/raw" | "$B/to-folded" --columns >"$T/folded"
	same "$1: default page" "" --title "Heap profile"
	origin "$1" "$2" "$3"
	same "$1: options" "&inverted=0&minwidth=0.5%25&colors=hot&title=a%3Cb%3E%26c" \
		--upward --minwidth 0.5% --colors hot --title 'a<b>&c'
	same "$1: every frame drawn" "&minwidth=0&inverted=1" --minwidth 0 --title "Heap profile"
}

T0=$(date +%s)
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
check "host started" wait_http "$U/internal/heap/settings"
enable "$U" "&lg_sample=0"
check "host allocates" host_cmd "grow 50" '^grown 50'
check "host allocates small blocks" host_cmd "small 300 48" '^kept'
pages "fixture host" "$HOST_PID" 1
# ?lines=1: frames with their file and line, as to-folded --lines writes them.
cu "$U/internal/heap?format=folded&lines" >"$T/lines.folded"
is "folded&lines (a flag): 200" "$(code)" 200
check "folded&lines=1: frames name hook_alloc_prog.c and a line" \
	grep -Eq '[A-Za-z_]+ \([^;]*hook_alloc_prog\.c:[0-9]+\)' "$T/lines.folded"
cu "$U/internal/heap?format=folded" >"$T/nolines.folded"
check "without it, no file and line" sh -c "! grep -q 'hook_alloc_prog\.c:' \"\$1\"" - "$T/nolines.folded"
cu "$U/internal/heap?format=flame&lines=true" >"$T/lines.svg"
check "flame&lines=true: the page's frames carry them" grep -q 'hook_alloc_prog\.c:[0-9]' "$T/lines.svg"
cu "$U/internal/heap?format=flame" >"$T/nolines.svg"
check "and the page without it does not" sh -c "! grep -q 'hook_alloc_prog\.c:[0-9]' \"\$1\"" - "$T/nolines.svg"
cu "$U/internal/heap?format=flame&lines=maybe" >/dev/null
is "lines=maybe: 400" "$(code)" 400
stop_host

# 2^10 distinct stacks, every allocation sampled.
port=$(free_port)
U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"
HOST_OUT=$T/bench.out; : >"$HOST_OUT"
env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
	FLAMEKIT_HTTP=127.0.0.1:$port "$B/hook-bench-prog" stacks 10 <"$T/in" >"$HOST_OUT" 2>"$T/bench.err" &
HOST_PID=$!
PIDS="$PIDS $HOST_PID"
exec 3>"$T/in"
check "bench host ready" wait_line '^ready'
pages "1024 stacks" "$HOST_PID" 1
check "1024 stacks: the page names the leaf" \
	[ "$(grep -o 'stack_leaf' "$T/hook.svg" | sort -u | wc -l)" -eq 1 ]
exec 3>&-
wait "$HOST_PID" 2>/dev/null || true

echo "1..$tn"
