#!/bin/sh
# SPDX-License-Identifier: MIT
# The files of each folder call each other one way (scripts/check-layers,
# from the objects' symbols): no circle in capture/ or any library. The
# include paths already keep folders from calling up (Makefile, INCS).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
B=${B:-build}
n=0; fail=0
for d in core cli symbolize encode render capture check; do
	n=$((n + 1))
	if out=$(B=$B scripts/check-layers "$d" 2>&1); then
		echo "ok $n - $d/: no call cycle between its files"
	else
		fail=1
		echo "not ok $n - $d/: $(echo "$out" | tr '\n' ' ' | cut -c1-300)"
	fi
done
exit $fail
