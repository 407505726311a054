#!/bin/sh
# SPDX-License-Identifier: MIT
# Every binary has a man page that mandoc accepts without warnings, that
# renders with man -l, and that names every long option its --help lists;
# the library's pages (man/*.3, man/*.7) pass mandoc -T lint too.
. "$(dirname "$0")/../lib/tap.sh"
# mandoc -T lint, all levels, less what depends on the machine's man
# database: pages not installed (ours, until make install) and its age.
lint() {
	mandoc -T lint "$1" 2>&1 | grep -v -e 'referenced manual not found' -e 'mandoc.db'
}
for prog in jeprof-raw symbolize to-pprof to-folded from-pprof render-flame heap-series heap-check heap-lifetimes heap-waste; do
	page=man/$prog.1
	if [ ! -f "$page" ]; then nok "$page exists"; continue; fi
	out=$(lint "$page")
	if [ -z "$out" ]; then ok "$page: mandoc -T lint clean"; else nok "$page: mandoc -T lint: $(echo "$out" | head -3 | tr '\n' ' ')"; fi
	if man -l "$page" 2>/dev/null | grep -q "$prog"; then ok "$page renders"; else nok "$page renders with man -l"; fi
	if [ ! -x "$B/$prog" ]; then nok "$B/$prog built"; continue; fi
	help=$("$B/$prog" --help 2>&1); st=$?
	[ "$st" = 0 ] && ok "$prog --help exits 0" || nok "$prog --help exits 0 (got $st)"
	missing=""
	for opt in $(echo "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		# mdoc writes --opt as "Fl -opt"; the rendered page shows "--opt".
		mandoc -T ascii "$page" 2>/dev/null | sed 's/.\x08//g' | grep -q -- "$opt" || missing="$missing $opt"
	done
	[ -z "$missing" ] && ok "$page documents every option of --help" ||
		nok "$page lacks options of --help:$missing"
	long=$("$B/$prog" --version 2>&1) && ok "$prog --version" || nok "$prog --version"
	short=$("$B/$prog" -V 2>&1) && [ "$short" = "$long" ] && ok "$prog -V prints the same" ||
		nok "$prog -V: '$short', --version: '$long'"
	echo "$help" | grep -q -- '^  -V, --version  *print the version and exit$' &&
		ok "$prog --help says -V, --version as every tool does" || nok "$prog --help: no '-V, --version' line"
	"$B/$prog" --no-such-option >/dev/null 2>&1; st=$?
	[ "$st" = 2 ] && ok "$prog: bad usage exits 2" || nok "$prog: bad usage exits 2 (got $st)"
done
for page in man/*.3 man/*.7; do
	[ -f "$page" ] || continue
	out=$(lint "$page")
	[ -z "$out" ] && ok "$page: mandoc -T lint clean" || nok "$page: $(echo "$out" | head -3 | tr '\n' ' ')"
done
exit $fail
