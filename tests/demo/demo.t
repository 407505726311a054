#!/bin/sh
# SPDX-License-Identifier: MIT
# The demo end to end: scripts/demo (what `make demo` runs after building)
# writes the SVG, the pprof and the folded stacks, and names the service's
# biggest allocation site, which go tool pprof agrees on.
. "$(dirname "$0")/../lib/tap.sh"
out=$tmp
if DEMO_OUT="$out" timeout 120 scripts/demo >"$out/stdout" 2>"$out/stderr"; then
	ok "scripts/demo exits 0"
else
	nok "scripts/demo failed: $(tail -3 "$out/stderr" | tr '\n' ' ')"
fi
for f in heap.svg heap.pb.gz heap.folded; do
	[ -s "$out/$f" ] && ok "wrote $f" || nok "wrote $f"
done
xmllint --noout "$out/heap.svg" 2>/dev/null && ok "heap.svg is well-formed XML" || nok "heap.svg is well-formed XML"
sed -n '/^Top 10/{n;p;}' "$out/stdout" | grep -q 'copy_value' &&
	ok "top site is copy_value" || nok "top site is copy_value: $(sed -n '/^Top 10/,+3p' "$out/stdout" | tr '\n' ' ')"
go tool pprof -top "$out/heap.pb.gz" 2>/dev/null | awk '/flat%/ { getline; print $NF; exit }' | grep -qx copy_value &&
	ok "go tool pprof -top agrees" || nok "go tool pprof -top agrees"
grep -q 'copy_value' "$out/heap.svg" && ok "flame graph names copy_value" || nok "flame graph names copy_value"
exit $fail
