#!/bin/sh
# SPDX-License-Identifier: MIT
# symbolize against its peers: jeprof reads our output with no binary at
# hand and reports what it reported on the original dumps for the fixture
# programs' own functions (jeprof's names for them are right); to-folded
# totals of our output equal jeprof --collapsed totals within 0.1 %;
# libdebuginfod is not loaded without DEBUGINFOD_URLS; every malformed dump is rejected with one
# line, exit 1 and no output.
. "$(dirname "$0")/../lib/tap.sh"

for f in fk-basic fk-inline fk-threads fk-stripped; do
	extra=""; [ "$f" = fk-stripped ] && extra="--debug-dir fixtures/debug"
	# shellcheck disable=SC2086
	symbolize --sysroot fixtures/sysroot $extra "fixtures/dumps/$f.prof" >"$tmp/$f.sym" 2>/dev/null
	okif $? "$f: symbolized"
	# jeprof insists on a program argument or a symbolized file; run it
	# where no binary of that name exists.
	(cd "$tmp" && jeprof --text "$f.sym" >"$f.text" 2>"$f.jerr")
	okif $? "$f: jeprof --text reads the symbolized profile with no binary"
	if [ "$f" = fk-stripped ]; then
		# jeprof names the stripped program's frames after a neighbouring
		# exported symbol; we name them from the debug file.
		! grep -q 'stderr@' "$tmp/$f.text" &&
			grep -q '^ *2\.0  64\.0%.* fk_hidden_pages$' "$tmp/$f.text" &&
			grep -q '^ *1\.0  33\.5%.* fk_hidden_words$' "$tmp/$f.text"
		okif $? "$f: the stripped program's functions named, not jeprof's 'stderr@GLIBC_2.2.5'"
	else
		grep -E '^ *[0-9.]+ +[0-9.]+% +[0-9.]+% +[0-9.]+ +[0-9.]+% (fk_|fks_|main)' \
			"fixtures/ref/$f.text" >"$tmp/$f.want"
		missing=$(grep -F -x -v -f "$tmp/$f.text" "$tmp/$f.want")
		[ -s "$tmp/$f.want" ] && [ -z "$missing" ]
		okif $? "$f: jeprof's lines for the program's functions agree $(echo "$missing" | head -2 | tr '\n' '|')"
	fi
	want=$(grep '^Total' "fixtures/ref/$f.text"); got=$(grep '^Total' "$tmp/$f.text")
	[ -n "$want" ] && [ "$want" = "$got" ]
	okif $? "$f: same total ($got)"
done

for f in python3.11 xmllint cc1; do
	ref=fixtures/ref/$f.collapsed; cat=cat
	[ -f "$ref.gz" ] && { ref=$ref.gz; cat="gzip -dc"; }
	symbolize "fixtures/dumps/$f.prof" 2>/dev/null | to-folded >"$tmp/$f.folded"
	okif $? "$f: symbolize | to-folded"
	$cat "$ref" | awk -v f="$tmp/$f.folded" '
		{ want += $NF }
		END { while ((getline l < f) > 0) { k = split(l, a, " "); got += a[k] }
		      d = got - want; if (d < 0) d = -d
		      printf "%.0f %.0f\n", got, want
		      exit !(want > 0 && d <= want * 0.001) }' >"$tmp/$f.tot"
	okif $? "$f: folded total equals jeprof --collapsed within 0.1 % ($(cat "$tmp/$f.tot"))"
done

# Offline unless asked: libdw would load libdebuginfod (and curl) when a
# local search fails; our own finder and client load libcurl only to ask
# a server of DEBUGINFOD_URLS (tests/symbolize/debuginfod.t), so without
# it nothing new is mapped.
env -u DEBUGINFOD_URLS LD_DEBUG=files symbolize fixtures/dumps/xmllint.prof \
	2>"$tmp/ld" >/dev/null
! grep -q -i 'debuginfod\|libcurl' "$tmp/ld" && grep -q 'libdw' "$tmp/ld"
okif $? "no libdebuginfod or libcurl loaded without DEBUGINFOD_URLS"
DEBUGINFOD_URLS=" " LD_DEBUG=files symbolize fixtures/dumps/xmllint.prof \
	2>"$tmp/ld" >/dev/null
! grep -q -i 'debuginfod\|libcurl' "$tmp/ld"
okif $? "nor with a DEBUGINFOD_URLS naming no server"

for f in fixtures/bad/dump-*.prof; do
	symbolize "$f" >"$tmp/out" 2>"$tmp/err"; st=$?
	lines=$(wc -l <"$tmp/err")
	[ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$lines" = 1 ] &&
		grep -q "^symbolize: $f: " "$tmp/err"
	okif $? "$(basename "$f"): one line, exit 1, no output: $(head -c 120 "$tmp/err")"
done
[ "$fail" = 0 ]
