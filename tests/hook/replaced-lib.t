#!/bin/sh
# SPDX-License-Identifier: MIT
# A library replaced on disk, or deleted, after the process mapped it is
# never named from the file now at its path (issue 22 item 6): dl-prog
# maps a copy of libfk-dl-alpha.so, allocates through it, and the copy is
# then replaced by libfk-dl-beta.so (the same layout, other names). The
# hook reads the mapped file through /proc/self/map_files (it names
# dl_alpha_alloc; without CAP_SYS_ADMIN it cannot, and leaves the frames
# module+offset with a warning); symbolize on the hook's raw dump, offline,
# sees the inode differ and leaves them module+offset with one warning.
. "$(dirname "$0")/hooklib.sh"
cp "$B/libfk-dl-alpha.so" "$T/libfk-dl.so"
start_sampled "$B/dl-prog"
check "the copy of alpha loaded" host_cmd "load $T/libfk-dl.so" '^loaded '
check "50 blocks from it" host_cmd "alloc 50" '^allocated 50$'
cu "$U/internal/heap?format=folded" >"$T/before"
check "before: named dl_alpha_alloc" grep -q ';dl_alpha_alloc ' "$T/before"
cu "$U/internal/heap?format=raw" >"$T/raw"
# Replaced the way package managers do: a new file renamed over the path.
cp "$B/libfk-dl-beta.so" "$T/new.so"
mv "$T/new.so" "$T/libfk-dl.so"
if [ "$(id -u)" = 0 ]; then want=dl_alpha_alloc; else want='libfk-dl.so\+0x[0-9a-f]+'; fi
for fmt in folded symbolized; do
	cu "$U/internal/heap?format=$fmt" >"$T/after.$fmt"
	is "replaced: $fmt is 200" "$(code)" 200
done
check "replaced: never named from the new file (no dl_beta_alloc)" sh -c "! grep -q dl_beta_alloc '$T/after.folded' '$T/after.symbolized'"
check "replaced: the hook names the mapped file's function ($want)" grep -Eq ";$want " "$T/after.folded"
rm "$T/libfk-dl.so"
cu "$U/internal/heap?format=raw" >"$T/raw-deleted"
check "deleted: the maps say (deleted)" grep -q 'libfk-dl.so (deleted)$' "$T/raw-deleted"
cu "$U/internal/heap?format=folded" >"$T/after-deleted"
check "deleted: the hook still names it ($want)" grep -Eq ";$want " "$T/after-deleted"
echo quit >&3
exec 3>&-
# Offline: the dump taken before the replacement maps the old inode; the
# file at the path is beta's, of another inode.
cp "$B/libfk-dl-beta.so" "$T/libfk-dl.so"
"$B/symbolize" "$T/raw" >"$T/raw.sym" 2>"$T/sym.err"
is "symbolize: exit 0" "$?" 0
like "symbolize: one warning naming the inodes" "$(grep libfk-dl "$T/sym.err")" \
	"^symbolize: $T/libfk-dl.so: not the file mapped \\(inode [0-9]+ in the dump, [0-9]+ now: replaced on disk\\): not named from it\$"
is "symbolize: that warning once" "$(grep -c libfk-dl "$T/sym.err")" 1
"$B/to-folded" "$T/raw.sym" >"$T/raw.folded" 2>/dev/null
check "symbolize: no dl_beta_alloc" sh -c "! grep -q dl_beta_alloc '$T/raw.folded'"
check "symbolize: module+offset instead" grep -Eq ';libfk-dl.so\+0x[0-9a-f]+ ' "$T/raw.folded"
"$B/symbolize" "$T/raw-deleted" 2>"$T/symd.err" | "$B/to-folded" >"$T/rawd.folded" 2>/dev/null
like "symbolize, (deleted): one warning" "$(grep libfk-dl "$T/symd.err")" \
	"^symbolize: $T/libfk-dl.so: the mapped file was deleted: not named from the file now at its path\$"
check "symbolize, (deleted): no dl_beta_alloc" sh -c "! grep -q dl_beta_alloc '$T/rawd.folded'"
cp "$T/raw" "$T/fk.1.1.i1.heap"
"$B/heap-series" "$T/fk.1.1.i1.heap" 2>"$T/hs.err" >"$T/hs.folded"
is "heap-series says the same, once" "$(grep -c 'libfk-dl.so: not the file mapped' "$T/hs.err")" 1
check "heap-series: no dl_beta_alloc" sh -c "! grep -q dl_beta_alloc '$T/hs.folded'"
echo "1..$tn"
