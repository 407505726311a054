#!/bin/sh
# SPDX-License-Identifier: MIT
# Side by side: render-flame against Brendan Gregg's flamegraph.pl on the
# synthetic heap profile of bench/gen-synth.py (default 100000 lines, about
# 86 MB), runs interleaved (ours, theirs, ours, ...) so that a busy machine
# slows both alike. Prints, for each, the median wall time, CPU time (user +
# system) and peak RSS (/usr/bin/time -v) with the spread of the wall times,
# the ratio of the medians, and the load average before and after.
# flamegraph.pl is not a Debian package: get it from
# https://github.com/brendangregg/FlameGraph (a clone or a release tarball;
# it needs only perl) and say where it is:
#   FLAMEGRAPH_PL=/path/to/FlameGraph/flamegraph.pl B=build bench/render-peer.sh [RUNS] [LINES]
# Defaults: 5 runs each, 100000 lines. The input is generated once and kept
# in $FK_BENCH_DIR (default /tmp/fk-bench-render).
set -eu
. "$(dirname "$0")/lib.sh"
bench_init
runs=${1:-5}
lines=${2:-100000}
fg=${FLAMEGRAPH_PL:-}
if [ -z "$fg" ] || [ ! -f "$fg" ]; then
	echo "bench: set FLAMEGRAPH_PL to flamegraph.pl" \
		"(https://github.com/brendangregg/FlameGraph)" >&2
	exit 1
fi
for t in "$B/render-flame" /usr/bin/time perl python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: missing $t" >&2; exit 1; }
done
work=${FK_BENCH_DIR:-/tmp/fk-bench-render}
mkdir -p "$work"
in=$work/synth-$lines.folded
[ -s "$in" ] || python3 bench/gen-synth.py "$lines" >"$in"

# Both must succeed and write an SVG; a failed run would time nothing.
"$B/render-flame" "$in" >"$tmp/ours.svg"
perl "$fg" "$in" >"$tmp/theirs.svg" 2>"$tmp/fg.err" || {
	echo "bench: flamegraph.pl failed: $(head -1 "$tmp/fg.err")" >&2; exit 1; }
for f in ours theirs; do
	grep -q '</svg>' "$tmp/$f.svg" || { echo "bench: $f wrote no whole SVG" >&2; exit 1; }
done

load0=$(cut -d' ' -f1-3 /proc/loadavg)
measure_pair all_ours "'$B/render-flame' '$in'" all_theirs "perl '$fg' '$in'" "$runs"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

spread() { sort -n -k1 "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
echo "input: $in, $(wc -l <"$in") lines, $(($(stat -c %s "$in") / 1000000)) MB"
echo "runs: $runs each, interleaved; load average before: $load0, after: $load1"
printf '%-14s %10s %14s %10s %12s %10s\n' tool "wall s" "wall min-max" "cpu s" "peak RSS MB" "svg bytes"
for m in "ours render-flame" "theirs flamegraph.pl"; do
	set -- $m
	printf '%-14s %10s %14s %10s %12s %10s\n' "$2" "$(median "all_$1" 1)" \
		"$(spread "all_$1")" "$(median "all_$1" 3)" \
		"$(median "all_$1" 2 | awk '{ printf "%.0f", $1 / 1024 }')" \
		"$(stat -c %s "$tmp/$1.svg")"
done
awk -v a="$(median all_theirs 1)" -v b="$(median all_ours 1)" \
	-v c="$(median all_theirs 3)" -v d="$(median all_ours 3)" \
	'BEGIN { if (b > 0 && d > 0) printf "render-flame is %.1fx faster (wall), %.1fx (cpu)\n", a / b, c / d }'
