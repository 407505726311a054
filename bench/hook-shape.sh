#!/bin/sh
# SPDX-License-Identifier: MIT
# The shape of the tree and of the hook's inside (bench/README.md, "The
# hook's shape"; issue 33's before/after figures): lines of C, headers and
# JavaScript per top folder; the mutable data and bss symbols of the
# hook's objects (objdump -t over BUILD's objects of capture/hook_*.c,
# serve_*.c and fetch.c); capture/'s ten longest functions (from the line of the
# name to the closing brace); every C, header or JavaScript file over 800
# lines; the getenv call sites in capture/. Reads the checkout it is run
# in (the current folder, which must be the top of one: measure another
# commit by running this script from its checkout), so that before and
# after are counted alike.
# Usage (after make B=BUILD): bench/hook-shape.sh [BUILD]   (default build)
set -eu
B=${1:-build}
if [ ! -d capture ] || [ ! -d core ]; then
	echo "bench/hook-shape.sh: run it from the top of a flamekit checkout" >&2
	exit 2
fi
# files: the tracked files of the checkout (every file when it is no git
# checkout), one a line.
files() { git ls-files 2>/dev/null || find . -type f | sed 's|^\./||'; }

echo "# $(git log -1 --format='%h %cs' 2>/dev/null || echo 'not a git checkout'); build $B"
echo "## lines per top folder"
printf '%-12s %7s %7s %7s %7s\n' folder C H JS all
files | grep -E '^[^/]+/.*\.(c|h|js)$' | while read -r f; do
	printf '%s %s %s\n' "${f%%/*}" "${f##*.}" "$(wc -l <"$f")"
done | awk '{ n[$1, $2] += $3; all[$1] += $3; c[$2] += $3; t += $3 }
	END {
		for (d in all) printf "%-12s %7d %7d %7d %7d\n", d, n[d, "c"], n[d, "h"], n[d, "js"], all[d]
		printf "%-12s %7d %7d %7d %7d\n", "(all)", c["c"], c["h"], c["js"], t
	}' | sort -k5,5nr

echo "## mutable state of the hook"
objs=""
missing=""
for f in capture/hook_*.c capture/serve_*.c capture/fetch.c; do
	o=$B/$(basename "$f" .c).o
	if [ -f "$o" ]; then objs="$objs $o"; else missing="$missing $o"; fi
done
[ -z "$missing" ] || { echo "bench/hook-shape.sh: missing$missing (run make B=$B)" >&2; exit 1; }
# objdump -t: objects in writable data (.data, .bss, thread-local ones)
# are state; read-only data and .data.rel.ro (tables of pointers the
# loader relocates, then read-only) are not, though nm calls the latter d.
state_syms() {
	objdump -t "$1" | awk '$3 == "O" && $4 ~ /^\.(data|bss|tdata|tbss)/ && $4 !~ /rel\.ro/ { print $NF, ($2 == "g" ? "g" : "l") }'
}
# shellcheck disable=SC2086
for o in $objs; do state_syms "$o"; done | awk -v nobj="$(echo $objs | wc -w)" '
	{ n++; if ($2 == "g") g++ }
	END { printf "data+bss symbols: %d (%d global, %d file-local) in %d objects\n", n, g, n - g, nobj }'
# shellcheck disable=SC2086
for o in $objs; do
	printf '%s %s\n' "$(state_syms "$o" | wc -l)" "$(basename "$o")"
done | sort -rn | awk '$1 > 0 { printf "%s%s=%s", sep, $2, $1; sep = " " } END { print "" }' |
	fold -s -w 76 | sed 's/^/  /'

echo "## the ten longest functions in capture/ (lines, name to closing brace)"
# The house style puts a function's name at the start of a line, its "{"
# and "}" alone at the start of theirs (as ctags counts: the same figures).
awk 'FNR == 1 { inf = 0; hdr = 0 }
	!inf && /^[A-Za-z_][^;]*\(/ { hdr = FNR; h = $0 }
	!inf && /^\{/ && hdr { inf = 1; start = hdr; name = h; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
	inf && /^\}/ { printf "%5d %s:%d %s\n", FNR - start + 1, FILENAME, start, name; inf = 0; hdr = 0 }' \
	capture/*.c | sort -rn | head -n 10

echo "## C, header and JavaScript files over 800 lines"
files | grep -E '\.(c|h|js)$' | while read -r f; do
	n=$(wc -l <"$f")
	[ "$n" -le 800 ] || printf '%5d %s\n' "$n" "$f"
done | sort -rn

echo "## getenv in capture/"
grep -c '\bgetenv *(' capture/*.c capture/*.h | awk -F: '$2 > 0 { n += $2; f++; l = l sep $1 "=" $2; sep = " " }
	END { printf "%d call sites in %d files: %s\n", n, f, l }' | fold -s -w 76 | sed '2,$s/^/  /'
