# SPDX-License-Identifier: MIT
# Shared by the bench/*.sh scripts (sourced, not run): their set-up,
# timing of repeated runs with /usr/bin/time -v, and medians. Callers set
# $tmp (bench_init does) and $runs.

# bench_init: the top of the tree as the working folder ($top), $B
# absolute (build unless set), $tmp a scratch folder removed on exit.
bench_init() {
	top=$(cd "$(dirname "$0")/.." && pwd)
	cd "$top"
	B=${B:-build}
	case "$B" in /*) ;; *) B=$top/$B ;; esac
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
}

# measure NAME COMMAND...: runs the shell command $runs times, appending one
# "wall_seconds peak_rss_kb cpu_seconds" line per run to $tmp/NAME. The wall
# time is read from the clock in nanoseconds around the run (time's own
# "Elapsed" has a resolution of 10 ms); it includes starting time and sh.
measure() {
	name=$1; shift
	: >"$tmp/$name"
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -v sh -c "$*" 2>"$tmp/time" >/dev/null
		t1=$(date +%s%N)
		awk -F': ' -v ns=$((t1 - t0)) 'BEGIN { wall = ns / 1e9 }
			/Maximum resident set size/ { rss = $2 }
			/User time \(seconds\)|System time \(seconds\)/ { cpu += $2 }
			END { printf "%.3f %d %.3f\n", wall, rss, cpu }' "$tmp/time" >>"$tmp/$name"
		i=$((i + 1))
	done
}

# measure_pair NAME_A CMD_A NAME_B CMD_B COUNT: COUNT runs of each command,
# interleaved (A, B, A, B, ...) so that a busy machine slows both alike;
# their lines in $tmp/NAME_A and $tmp/NAME_B.
measure_pair() {
	: >"$tmp/$1"; : >"$tmp/$3"
	mp_runs=${runs:-1}; runs=1
	# measure counts its runs in $i: this loop counts in $k.
	k=0
	while [ "$k" -lt "$5" ]; do
		measure one "$2"; cat "$tmp/one" >>"$tmp/$1"
		measure one "$4"; cat "$tmp/one" >>"$tmp/$3"
		k=$((k + 1))
	done
	runs=$mp_runs
}

# median NAME COLUMN: the median of that column of $tmp/NAME
# (1 = wall seconds, 2 = peak RSS KB, 3 = CPU seconds).
median() {
	sort -n -k"$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
