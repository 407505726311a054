# SPDX-License-Identifier: MIT
# Shared set-up of the scripts outside tests/hook (sourced, not run, as
# . "$(dirname "$0")/../lib/tap.sh"): the top of the tree as the working
# folder ($top), $B absolute and first on PATH, a scratch folder $tmp
# removed on exit (a script with more to clean sets its own trap, which
# removes $tmp too), and the TAP lines: n counts them, fail is 1 once one
# is "not ok".
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
B=${B:-build}
case "$B" in /*) ;; *) B=$top/$B ;; esac
PATH="$B:$PATH"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0; fail=0

# ok WHAT, nok WHAT: one line each.
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
# t WHAT COMMAND...: ok when COMMAND succeeds. A condition of several
# commands runs on its own line, then t WHAT [ $? = 0 ]: in t WHAT A && B,
# the shell would run B after t, unchecked (scripts/check-tests finds such).
t() {
	what=$1; shift
	if "$@"; then ok "$what"; else nok "$what"; fi
}
# okif STATUS WHAT [WHY]: ok when STATUS is 0 (okif $? WHAT after a
# command); WHY goes on the "not ok" line.
okif() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2${3:+: $3}"; fi; }
