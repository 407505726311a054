# SPDX-License-Identifier: MIT
# Shared by the bench/*.sh scripts (sourced, not run): timing of repeated
# runs with /usr/bin/time -v, and medians. Callers set $tmp and $runs.

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

# median NAME COLUMN: the median of that column of $tmp/NAME
# (1 = wall seconds, 2 = peak RSS KB, 3 = CPU seconds).
median() {
	sort -n -k"$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
