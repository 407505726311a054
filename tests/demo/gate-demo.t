#!/bin/sh
# SPDX-License-Identifier: MIT
# The memory gate's demo end to end: scripts/gate-demo (what `make
# gate-demo` runs after building) runs the leaky test binary under the
# hook, and heap-check against demo/heap.budget fails on parse_token's
# leak and on nothing else; the JUnit report, the summary and the flame
# graph of what went over are written and valid.
. "$(dirname "$0")/../lib/tap.sh"
out=$tmp
if DEMO_OUT="$out" timeout 120 scripts/gate-demo >"$out/stdout" 2>"$out/stderr"; then
	ok "scripts/gate-demo exits 0 (heap-check failed the gate, as it must)"
else
	nok "scripts/gate-demo failed: $(tail -3 "$out/stderr" | tr '\n' ' ')"
fi
g=$out/gate
grep -q '^over  budget line 8 .\*.: .* > 0 B' "$out/stdout" && ok "the catch-all line is over" || nok "the catch-all line is over"
[ "$(grep -c '^over ' "$out/stdout")" = 1 ] && ok "and only it" || nok "only the catch-all line is over: $(grep '^over' "$out/stdout")"
sed -n '/^over /{n;p;}' "$out/stdout" | grep -q ' parse_token < test_parse < main' &&
	ok "naming parse_token as the site" || nok "naming parse_token as the site"
xmllint --noout "$g/heap-check.xml" 2>/dev/null &&
	python3 tests/check/checklib.py junit "$g/heap-check.xml" 4 1 "budget line 8 '*'" &&
	ok "heap-check.xml: JUnit, one failure" || nok "heap-check.xml: JUnit, one failure"
python3 tests/check/checklib.py markdown "$g/summary.md" 4 && ok "summary.md: a table of the four lines" ||
	nok "summary.md: a table of the four lines"
xmllint --noout "$g/over.svg" 2>/dev/null && grep -q parse_token "$g/over.svg" &&
	! grep -q config_load "$g/over.svg" && ok "over.svg: what went over, and only that" ||
	nok "over.svg: what went over, and only that"
exit $fail
