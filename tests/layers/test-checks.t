#!/bin/sh
# SPDX-License-Identifier: MIT
# The shell tests' checks check what they say (scripts/check-tests): no
# call of a check function followed by && , || or |, whose next command
# the shell runs after the check printed "ok", and none with its standard
# output redirected. First the script itself, on a test of known lines.
. "$(dirname "$0")/../lib/tap.sh"

# Each check whose description ends in "(BAD)" must be reported, no other.
mkdir "$tmp/g"
cat >"$tmp/g/lib.sh" <<'LIB'
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
LIB
cat >"$tmp/g/x.t" <<'X'
#!/bin/sh
. "$(dirname "$0")/lib.sh"
is() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1"; fi; }
both() { check "$1 a" [ -n "$2" ]; check "$1 b" [ -n "$3" ]; }
started() { if ! true; then nok "started"; return 1; fi; ok "started"; }
py() { python3 -c "
print(1 is 1)"; }
check "two conditions (BAD)" [ 1 = 1 ] && [ 2 = 1 ]
check "either (BAD)" [ 1 = 2 ] || [ 1 = 1 ]
check "piped (BAD)" grep -q x /dev/null | cat
is "a value (BAD)" "$(echo 1)" 1 && [ -s /nonexistent ]
check "continued (BAD)" \
	[ 1 = 1 ] && [ 2 = 1 ]
if true; then check "in an if (BAD)" true && false; fi
both "a wrapper (BAD)" 1 2 && false
check "lost (BAD)" true >/dev/null
check "on a next line (BAD)" [ 1 = 1 ] &&
	[ 2 = 1 ]
check "one command" sh -c '[ 1 = 1 ] && [ 2 = 2 ]'
check "quoted && and || $(echo a && echo b)" [ "&&" = "&&" ]
check "its stderr" grep -q x /nonexistent 2>/dev/null
[ 1 = 1 ] && check "after a condition" true
[ 1 = 1 ] && ok "either way" || nok "either way"
started || exit 1
py | grep -q True
case "$1" in
	check|is) echo "a pattern" ;;
	*) ok "default" ;;
esac
cat <<EOT
check "in a here-document" true && false
EOT
X
grep -n '(BAD)"' "$tmp/g/x.t" | cut -d: -f1 >"$tmp/want"
scripts/check-tests "$tmp/g/x.t" >"$tmp/out" 2>"$tmp/err"; st=$?
t "check-tests on a test with $(wc -l <"$tmp/want") bad lines: exit 1" [ "$st" = 1 ]
sed -n 's/^check-tests: [^:]*:\([0-9]*\): .*/\1/p' "$tmp/out" >"$tmp/got"
t "those lines reported, no other ($(tr '\n' ' ' <"$tmp/got"))" cmp -s "$tmp/want" "$tmp/got"
t "each once, as FILE:LINE: message" [ "$(grep -c "^check-tests: $tmp/g/x.t:[0-9]*: [a-z]* " "$tmp/out")" = "$(wc -l <"$tmp/want")" ]
t "nothing on stderr" [ ! -s "$tmp/err" ]
scripts/check-tests "$tmp/none.t" >/dev/null 2>"$tmp/err"; st=$?
t "a missing file: exit 2, one line naming it" [ "$st" = 2 ]
t "naming it" grep -q "^check-tests: $tmp/none.t: " "$tmp/err"

# The tests of the tree.
scripts/check-tests >"$tmp/out" 2>&1; st=$?
t "every shell test's check is one command" [ "$st" = 0 ]
sed 's/^/# /' "$tmp/out"
echo "1..$n"
