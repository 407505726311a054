#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's man pages against its table of settings (capture/hook_env.c),
# both ways, from the table itself (test_hook_env --print-settings), never
# a copied list: every setting has an entry in the reference's ENVIRONMENT
# (flamekit-hook-reference(7)) that says "Default: D." with the table's
# default and, for a number, the table's bounds word for word; the usage
# page's ENVIRONMENT (libflamekit-hook(3)) names every setting; and every
# FLAMEKIT_* either page mentions is in the table.
. "$(dirname "$0")/../lib/tap.sh"
T=$tmp
USAGE=man/libflamekit-hook.3
REF=man/flamekit-hook-reference.7

if "$B/test_hook_env" --print-settings >"$T/table" && [ -s "$T/table" ]; then
	ok "the table prints ($(wc -l <"$T/table") settings)"
else
	nok "$B/test_hook_env --print-settings prints the table"
	exit 1
fi
# render PAGE: the page as text, one line per entry of its lists.
render() { mandoc -T ascii "$1" | sed 's/.\x08//g'; }
render "$USAGE" >"$T/usage.txt"
render "$REF" >"$T/ref.txt"
# section FILE NAME: the lines of section NAME of a rendered page.
section() { awk -v s="$2" '/^[A-Z]/ { on = ($0 == s) } on' "$1"; }
# entries: one line per entry of an ENVIRONMENT section, "TAG<TAB>BODY",
# with its text joined by single spaces.
entries() {
	awk '/^     [^ ]/ { if (tag != "") print tag "\t" body; tag = $0; body = ""; next }
	     /^       / { body = body " " $0 }
	     END { if (tag != "") print tag "\t" body }' | sed 's/  */ /g; s/\t /\t/'
}
section "$T/ref.txt" ENVIRONMENT | entries >"$T/ref.env"
section "$T/usage.txt" ENVIRONMENT | entries >"$T/usage.env"
[ -s "$T/ref.env" ] && ok "$REF has an ENVIRONMENT list" || nok "$REF: no ENVIRONMENT list"

tab=$(printf '\t')
while IFS="$tab" read -r name type deflt bounds help; do
	# The entry whose tag names exactly this variable.
	body=$(awk -F '\t' -v v="$name" '{ t = $1; gsub(/[ ,]+/, " ", t); if ((" " t " ") ~ (" " v " ")) print $2 }' "$T/ref.env")
	if [ -z "$body" ]; then
		nok "$name: no entry in $REF ENVIRONMENT"
		continue
	fi
	case $body in
	*"Default: $deflt."*) ok "$name: $REF says 'Default: $deflt.'" ;;
	*) nok "$name: $REF's entry lacks 'Default: $deflt.': $body" ;;
	esac
	if [ "$bounds" != - ]; then
		case $body in
		*"$bounds"*) ok "$name: $REF gives its bounds '$bounds'" ;;
		*) nok "$name: $REF's entry lacks the bounds '$bounds': $body" ;;
		esac
	fi
	if awk -F '\t' -v v="$name" '{ t = $1; gsub(/[ ,]+/, " ", t); if ((" " t " ") ~ (" " v " ")) f = 1 } END { exit !f }' "$T/usage.env"; then
		ok "$name: $USAGE ENVIRONMENT names it"
	else
		nok "$name: $USAGE ENVIRONMENT does not name it"
	fi
done <"$T/table"

# The other way: every FLAMEKIT_ variable either page mentions.
cut -f1 "$T/table" | sort -u >"$T/names"
cat "$T/usage.txt" "$T/ref.txt" | grep -o 'FLAMEKIT_[A-Z_]*[A-Z]' | sort -u >"$T/mentioned"
extra=$(comm -13 "$T/names" "$T/mentioned" | tr '\n' ' ')
[ -z "$extra" ] && ok "every FLAMEKIT_* the pages mention is in the table" ||
	nok "the pages mention variables the table lacks: $extra"
unsaid=$(comm -23 "$T/names" "$T/mentioned" | tr '\n' ' ')
[ -z "$unsaid" ] && ok "every setting of the table is mentioned" || nok "never mentioned: $unsaid"
echo "1..$n"
exit $fail
