#!/bin/sh
# SPDX-License-Identifier: MIT
# make install into a temporary DESTDIR installs tools, hook (multiarch
# LIBDIR, soname libflamekit-hook.so.0 and its links), header, pkg-config
# file and man pages; an installed tool runs, a program links against the
# installed library; uninstall removes them all.
. "$(dirname "$0")/../lib/tap.sh"
d=$tmp
if make -s --no-print-directory B="$B" DESTDIR="$d" PREFIX=/usr/local install >"$d.log" 2>&1; then
	ok "make install DESTDIR=..."
else
	nok "make install: $(tail -3 "$d.log" | tr '\n' ' ')"
fi
rm -f "$d.log"
ma=$(${CC:-cc} -print-multiarch)
L=lib/$ma
for f in bin/jeprof-raw bin/symbolize bin/to-pprof bin/to-folded bin/from-pprof bin/render-flame bin/heap-series bin/heap-check \
	 $L/libflamekit-hook.so.0.1.0 $L/libflamekit-hook.so.0 $L/libflamekit-hook.so \
	 $L/libflamekit-hook-serve.so.0 \
	 include/flamekit_hook.h $L/pkgconfig/flamekit-hook.pc \
	 share/man/man1/jeprof-raw.1 share/man/man1/render-flame.1 share/man/man1/heap-check.1 share/man/man3/libflamekit-hook.3 \
	 share/man/man7/flamekit-hook-reference.7; do
	[ -e "$d/usr/local/$f" ] && ok "installed $f" || nok "installed $f"
done
if "$d/usr/local/bin/jeprof-raw" --check --stats fixtures/good/tiny.prof 2>&1 | grep -q '^bytes: '; then
	ok "installed jeprof-raw runs"
else
	nok "installed jeprof-raw runs"
fi
grep -q '^prefix=/usr/local' "$d/usr/local/$L/pkgconfig/flamekit-hook.pc" 2>/dev/null &&
	ok "pkg-config file names the prefix" || nok "pkg-config file names the prefix"
[ "$(readlink "$d/usr/local/$L/libflamekit-hook.so")" = libflamekit-hook.so.0 ] &&
	[ "$(readlink "$d/usr/local/$L/libflamekit-hook.so.0")" = libflamekit-hook.so.0.1.0 ] &&
	ok "soname and development links" || nok "soname and development links"
soname=$(readelf -d "$d/usr/local/$L/libflamekit-hook.so.0.1.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libflamekit-hook.so.0 ] && ok "soname libflamekit-hook.so.0" || nok "soname is '$soname'"
libs=$(PKG_CONFIG_PATH="$d/usr/local/$L/pkgconfig" pkg-config --libs flamekit-hook 2>&1 | sed "s/ *$//")
[ "$libs" = "-L/usr/local/$L -lflamekit-hook" ] && ok "pkg-config --libs flamekit-hook: $libs" ||
	nok "pkg-config --libs flamekit-hook: '$libs'"
# A program links against the installed library and runs with it.
printf '#include <flamekit_hook.h>\nint main(void) { struct fk_hook_status st; return fk_hook_status(&st); }\n' >"$d/t.c"
# A sanitized build's library needs the sanitizers' runtime in the program.
san=$(nm -D "$d/usr/local/$L/libflamekit-hook.so.0" 2>/dev/null | grep -q ' U __asan' &&
	echo "-fsanitize=address,undefined" || true)
if ${CC:-cc} $san -I"$d/usr/local/include" -o "$d/t" "$d/t.c" -L"$d/usr/local/$L" -lflamekit-hook 2>"$d/cc.err" &&
	LD_LIBRARY_PATH="$d/usr/local/$L" "$d/t"; then
	ok "a program links and runs against the installed library"
else
	nok "a program links and runs against the installed library: $(head -3 "$d/cc.err" | tr '\n' ' ')"
fi
rm -f "$d/t" "$d/t.c" "$d/cc.err"
# Preloaded from where it was installed, the hook finds its serving half
# beside it on the first request (not in a sanitized build: the host would
# need the sanitizers' runtime).
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
if [ -z "$san" ] && [ -n "$JE" ]; then
	LD_PRELOAD="$d/usr/local/$L/libflamekit-hook.so $JE" FLAMEKIT_HTTP="unix:$d/hook.sock" \
		sleep 300 </dev/null >/dev/null 2>"$d/hook.err" &
	hp=$!
	i=0; while [ ! -S "$d/hook.sock" ] && [ $i -lt 300 ] && kill -0 $hp 2>/dev/null; do
		sleep 0.1; i=$((i + 1)); done
	code=$(curl -s --max-time 60 --unix-socket "$d/hook.sock" -o "$d/settings.json" -w '%{http_code}' \
		http://localhost/internal/heap/settings)
	[ "$code" = 200 ] && grep -q '"jemalloc":true' "$d/settings.json" &&
		ok "the installed hook serves, its serving half loaded from its folder" ||
		nok "the installed hook answered '$code': $(head -c 300 "$d/hook.err" "$d/settings.json" 2>/dev/null | tr '\n' ' ')"
	kill $hp 2>/dev/null; wait $hp 2>/dev/null
	rm -f "$d/hook.sock" "$d/hook.err" "$d/settings.json"
fi
make -s --no-print-directory B="$B" DESTDIR="$d" PREFIX=/usr/local uninstall >/dev/null 2>&1
left=$(find "$d" -type f | wc -l)
[ "$left" = 0 ] && ok "make uninstall removes every file" || nok "make uninstall left $left files"
exit $fail
