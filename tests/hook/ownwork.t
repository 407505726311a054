#!/bin/sh
# SPDX-License-Identifier: MIT
# None of the hook's own work is sampled, in any sample type: with
# prof_accum:true (so freed allocations count in alloc_*), after several
# profiles rendered by the hook (symbolize's module pool starts threads,
# libdw inflates debug sections), no frame of the project's code,
# libmicrohttpd or libdw appears in the in-use or the allocated view.
. "$(dirname "$0")/hooklib.sh"

port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:10
check "host serves" wait_http "$U/internal/heap/settings"
enable "$U"
check "host allocates" host_cmd "grow 20" '^grown 20'
for i in 1 2 3; do
	cu "$U/internal/heap?format=flame" >/dev/null
	cu "$U/internal/heap" >/dev/null
done
cu "$U/internal/heap?format=symbolized" >"$T/sym"
is "symbolized profile is 200" "$(code)" 200
own='fk_|MHD_|dwfl|dwarf_|libdw|libelf|flamekit|loop_main|start_thread'
for view in "--inuse" "--alloc" "--inuse --value objects" "--alloc --value objects"; do
	"$B/to-folded" $view "$T/sym" >"$T/f" 2>"$T/f.err"
	check "to-folded $view reads the hook's profile" [ -s "$T/f" ]
	check "to-folded $view: the program's own site is there" grep -q 'hog_grow_cache' "$T/f"
	n=$(grep -cE "$own" "$T/f")
	is "to-folded $view: no frame of the hook's own work" "$n" 0
done
stop_host
echo "1..$tn"
