#!/bin/sh
# SPDX-License-Identifier: MIT
# Every SVG render-flame writes must be well-formed XML: each folded fixture,
# hostile options, and random byte soup (control characters, invalid UTF-8,
# markup) as frame names, checked by xmllint --noout. Also: a malformed input
# writes nothing on stdout.
. "$(dirname "$0")/../lib/tap.sh"
LC_ALL=C; export LC_ALL
command -v xmllint >/dev/null || { echo "not ok 1 - xmllint missing (libxml2-utils)"; exit 1; }
check() { # name, then render-flame arguments
	name=$1; shift
	n=$((n + 1))
	if ! render-flame "$@" >"$tmp/out.svg" 2>"$tmp/err"; then
		fail=$((fail + 1)); echo "not ok $n - $name: render-flame failed: $(head -c 200 "$tmp/err")"
	elif ! xmllint --noout "$tmp/out.svg" 2>"$tmp/xerr"; then
		fail=$((fail + 1)); echo "not ok $n - $name: xmllint: $(head -c 300 "$tmp/xerr")"
	else
		echo "ok $n - $name is well-formed"
	fi
}
for f in fixtures/folded/*.folded; do
	check "$f" --skip-bad "$f"
	check "$f inverted, weight, flamechart" --skip-bad --inverted --sort=weight --flamechart "$f"
done
for f in fixtures/bad/folded-*.folded; do
	# An overflowing total is a limit, not a bad line: never skipped.
	case $f in *overflow*) continue ;; esac
	check "$f skipped" --skip-bad "$f"
done
check "diff" --diff fixtures/folded/diff-base.folded fixtures/folded/diff-new.folded
check "diff, normalized, upward" --diff fixtures/folded/diff-base.folded --normalize --upward fixtures/folded/diff-new.folded
printf '# columns: inuse_space/bytes inuse_objects/count\nmain;a 1 2\nmain;b;c 3 4\n' >"$tmp/cols.folded"
check "multi-column input" "$tmp/cols.folded"
hostile=$(printf '<script>alert(1)</script> ]]> -- <!-- "];alert(1)// </style><script> \001\033\177 \377\376 &amp; &#0;')
check "hostile options" --title "$hostile" --subtitle "$hostile" --notes "$hostile" \
	--countname "$hostile" --nametype "$hostile" --fonttype "$hostile" fixtures/folded/merge.folded
# Random bytes as names: every byte but NUL, ';', newline; a fixed seed.
awk 'BEGIN { srand(7); for (l = 0; l < 300; l++) { s = "main;";
	for (i = 0; i < 40; i++) { c = int(rand() * 255) + 1;
		if (c == 10 || c == 59) c = 32; s = s sprintf("%c", c) }
	print s " " int(rand() * 1000) } }' >"$tmp/soup.folded"
check "random byte names" --skip-bad "$tmp/soup.folded"
# No partial output on a malformed input.
n=$((n + 1))
printf 'main;a 1\nmain;b x\n' >"$tmp/bad.folded"
if render-flame "$tmp/bad.folded" >"$tmp/out.svg" 2>/dev/null || [ -s "$tmp/out.svg" ]; then
	fail=$((fail + 1)); echo "not ok $n - malformed input: expected failure and no output"
else
	echo "ok $n - malformed input writes nothing"
fi
[ "$fail" = 0 ]
