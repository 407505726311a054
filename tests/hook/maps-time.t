#!/bin/sh
# SPDX-License-Identifier: MIT
# Every snapshot is named with the maps of its own time (issue 22 item 5):
# dl-prog allocates from libfk-dl-alpha.so, a snapshot is taken, alpha is
# unloaded and libfk-dl-beta.so (the same code, another function name) is
# loaded at its address, more is allocated and another snapshot taken.
# The timeline named the first snapshot's bytes with the newest maps, under
# beta's function; ?snapshot=1 named them rightly.
. "$(dirname "$0")/hooklib.sh"
start_sampled "$B/dl-prog"
# snap: takes a snapshot; its id goes to $T/snap.id. (The hook may take
# peak snapshots of its own at any time: the checks read the ids it gave.)
snap() {
	cu -X POST "$U/internal/heap/snapshot" >"$T/snap.json"
	[ "$(code)" = 200 ] && jfield "$(cat "$T/snap.json")" id >"$T/snap.id"
}
check "alpha loaded" host_cmd "load $B/libfk-dl-alpha.so" '^loaded '
a=$(sed -n 's/^loaded //p' "$HOST_OUT" | tail -1)
check "50 blocks from alpha" host_cmd "alloc 50" '^allocated 50$'
check "snapshot 1 (alpha mapped)" snap
first=$(cat "$T/snap.id")
check "alpha unloaded" host_cmd "unload" '^unloaded$'
check "beta loaded" host_cmd "load $B/libfk-dl-beta.so" '^loaded .*'
b=$(sed -n 's/^loaded //p' "$HOST_OUT" | tail -1)
is "beta lies where alpha lay" "$b" "$a"
check "30 blocks from beta" host_cmd "alloc 30" '^allocated 80$'
check "snapshot 2 (beta mapped)" snap
cu "$U/internal/heap?snapshot=$first&format=folded" >"$T/s1"
check "?snapshot=$first names dl_alpha_alloc" grep -q ';dl_alpha_alloc ' "$T/s1"
cu "$U/internal/heap/timeline?format=folded" >"$T/tl"
# The column of the first snapshot in the timeline.
ncols=$(head -1 "$T/tl" | wc -w); ncols=$((ncols - 2))
col=$(head -1 "$T/tl" | tr ' ' '\n' | grep -n "^s$first/bytes\$" | cut -d: -f1)
col=$((col - 3))
# value FUNC: the sum of column $col over the lines whose leaf is FUNC.
value() { grep ";$1 " "$T/tl" | awk -v c="$col" -v n="$ncols" '{ s += $(NF - n + 1 + c) } END { print s + 0 }'; }
v=$(value dl_alpha_alloc)
check "the timeline puts the first snapshot's bytes under dl_alpha_alloc ($v)" [ "$v" -gt 3000000 ]
w=$(value dl_beta_alloc)
is "and none under dl_beta_alloc in that column" "$w" 0
check "the newest snapshot names beta's blocks dl_beta_alloc" grep -q ';dl_beta_alloc ' "$T/tl"
echo quit >&3
exec 3>&-
echo "1..$tn"
