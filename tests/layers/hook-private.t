#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's two libraries meet in one header that matches the version
# script (scripts/check-hook-private; docs/hook.md, "Two libraries"). First
# the check itself, on a header with one name too many: it must be said.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
B=${B:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0; fail=0
t() {
	n=$((n + 1)); what=$1; shift
	if "$@"; then echo "ok $n - $what"; else fail=1; echo "not ok $n - $what"; fi
}

# A copy of the tree's scripts/ and capture/ with an extra declaration.
mkdir -p "$tmp/scripts" "$tmp/capture"
cp scripts/check-hook-private "$tmp/scripts/"
cp capture/*.h capture/*.c capture/*.map capture/build.mk "$tmp/capture/"
printf '\nint fk_not_exported(void);\n' >>"$tmp/capture/hook_private.h"
out=$("$tmp/scripts/check-hook-private" 2>&1); rc=$?
t "a declaration the version script lacks fails the check" [ "$rc" -eq 1 ]
t "and is named" sh -c 'echo "$1" | grep -q "declares fk_not_exported"' _ "$out"
sed -i 's/#include "serve_int.h"/#include "hook_int.h"/' "$tmp/capture/serve_snap.c"
out=$("$tmp/scripts/check-hook-private" 2>&1)
t "a serving file that includes hook_int.h is named" \
	sh -c 'echo "$1" | grep -q "serve_snap.c (serving half) includes"' _ "$out"

out=$(scripts/check-hook-private "$B" 2>&1); rc=$?
t "capture/hook_private.h matches capture/hook.map and the serving library's calls" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || echo "$out" | sed 's/^/# /'
echo "1..$n"
exit $fail
