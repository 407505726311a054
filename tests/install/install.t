#!/bin/sh
# make install into a temporary DESTDIR installs tools, hook, header,
# pkg-config file and man pages; an installed tool runs; uninstall removes
# them all.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
B=${B:-build}
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
n=0; fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
if make -s --no-print-directory B="$B" DESTDIR="$d" PREFIX=/usr/local install >"$d.log" 2>&1; then
	ok "make install DESTDIR=..."
else
	nok "make install: $(tail -3 "$d.log" | tr '\n' ' ')"
fi
rm -f "$d.log"
for f in bin/jeprof-raw bin/symbolize bin/to-pprof bin/to-folded bin/from-pprof bin/render-flame \
	 lib/libflamekit-hook.so include/flamekit_hook.h lib/pkgconfig/flamekit-hook.pc \
	 share/man/man1/jeprof-raw.1 share/man/man1/render-flame.1 share/man/man3/libflamekit-hook.3; do
	[ -e "$d/usr/local/$f" ] && ok "installed $f" || nok "installed $f"
done
if "$d/usr/local/bin/jeprof-raw" --check --stats fixtures/good/tiny.prof 2>&1 | grep -q '^bytes: '; then
	ok "installed jeprof-raw runs"
else
	nok "installed jeprof-raw runs"
fi
grep -q '^prefix=/usr/local' "$d/usr/local/lib/pkgconfig/flamekit-hook.pc" 2>/dev/null &&
	ok "pkg-config file names the prefix" || nok "pkg-config file names the prefix"
make -s --no-print-directory B="$B" DESTDIR="$d" PREFIX=/usr/local uninstall >/dev/null 2>&1
left=$(find "$d" -type f | wc -l)
[ "$left" = 0 ] && ok "make uninstall removes every file" || nok "make uninstall left $left files"
exit $fail
