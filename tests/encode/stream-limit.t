#!/bin/sh
# SPDX-License-Identifier: MIT
# A stream past the input limit (FK_MAX_INPUT, 4 GiB) is refused with the
# limit's line, holding at most the limit and a page: under a 6 GiB address
# space the tools say "input larger than", where they grew to 8 GiB and
# said "out of memory reading input" (issue 22 item 7). NUL-free text
# (`yes`), so the early NUL refusal does not apply.
B=${B:-build}
n=0; bad=0
# A sanitized build reserves terabytes of shadow address space and cannot
# start under ulimit -v: the limit is the real build's to show.
if ldd "$B/to-folded" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	echo "ok 1 - stream limit # skip a sanitized build cannot run under ulimit -v"
	exit 0
fi
check() { # TOOL ARGS...: yes | TOOL ARGS under ulimit -v
	n=$((n + 1))
	err=$( (ulimit -v 6291456; yes | /usr/bin/time -f "maxrss %M" "$B/$@" 2>&1 >/dev/null) )
	rss=$(printf '%s\n' "$err" | sed -n 's/^maxrss //p')
	line=$(printf '%s\n' "$err" | grep -v '^maxrss\|^Command exited')
	if [ "$line" = "$1: -: input larger than 4294967296 bytes" ] && [ "${rss:-0}" -lt 4500000 ]; then
		echo "ok $n - $1: a 4 GiB+ stream refused by the limit in ${rss} KB"
	else
		echo "not ok $n - $1: got '$line', ${rss:-?} KB"; bad=1
	fi
}
check to-folded
check from-pprof
exit $bad
