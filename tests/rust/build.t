#!/bin/sh
# SPDX-License-Identifier: MIT
# The flamekit crate and its examples build offline against Debian's
# crates (/usr/share/cargo/registry, rust/flamekit/.cargo/config.toml),
# with the hook linked in statically: no library of ours in the programs'
# NEEDED, the system's libraries dynamically; the seed on the shared
# libjemalloc.so.2, the hyper service on jemalloc-sys's static _rjem_ one.
. "$(dirname "$0")/rustlib.sh"
skip_sanitized "the crate builds"

check "cargo is installed (scripts/install-deps)" sh -c "command -v cargo >/dev/null"
start=$(date +%s)
if rust_build; then ok "crate and examples build offline"; else notok "crate and examples build offline: $(grep -E '^error' "$T/cargo.log" | head -3)"; cat "$T/cargo.log" >&2; fi
echo "# cargo build: $(($(date +%s) - start)) s (cached in $CARGO_TARGET_DIR)"
check "no registry was asked" sh -c "! grep -qi 'Updating crates.io\\|Downloading' '$T/cargo.log'"

for p in seed hyper_service; do
	readelf -dW "$EX/$p" >"$T/dyn.$p" 2>&1
	check "$p: no library of ours needed" sh -c "! grep -q 'flamekit' '$T/dyn.$p'"
	check "$p: libmicrohttpd linked dynamically" grep -q 'NEEDED.*libmicrohttpd.so' "$T/dyn.$p"
	check "$p: libdw linked dynamically" grep -q 'NEEDED.*libdw.so' "$T/dyn.$p"
	check "$p: the hook's API is in the program" sh -c "nm '$EX/$p' | grep -q ' T fk_hook_handle$'"
done
# The README's runtime packages: every library the programs need is one of
# theirs (libmicrohttpd12 libdw1 libelf1 libprotobuf-c1 libxml2 zlib1g
# libdeflate0 liblzma5, libjemalloc2) or the C runtime's.
ALLOWED='libmicrohttpd.so.12 libdw.so.1 libelf.so.1 libprotobuf-c.so.1 libxml2.so.2 libz.so.1 libdeflate.so.0 liblzma.so.5 libjemalloc.so.2 libm.so.6 libgcc_s.so.1 libc.so.6 ld-linux-x86-64.so.2'
for p in seed hyper_service; do
	extra=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' "$T/dyn.$p" | while read -r l; do
		case " $ALLOWED " in *" $l "*) ;; *) printf '%s ' "$l" ;; esac; done)
	is "$p: needs only the README's runtime packages" "$extra" ""
done
check "seed: the shared libjemalloc.so.2" grep -q 'NEEDED.*libjemalloc.so.2' "$T/dyn.seed"
check "hyper_service: no shared jemalloc" sh -c "! grep -q 'NEEDED.*jemalloc' '$T/dyn.hyper_service'"
check "hyper_service: _rjem_mallctl in its symbol table" sh -c "nm '$EX/hyper_service' | grep -q ' T _rjem_mallctl$'"
check "hyper_service: _rjem_malloc_conf defined (rjem_malloc_conf!)" sh -c "nm '$EX/hyper_service' | grep -q ' D _rjem_malloc_conf$'"
# The shared jemalloc reads the hook's malloc_conf (prof:true): the
# program exports it, as the preloaded library does.
check "seed: exports malloc_conf" sh -c "nm -D '$EX/seed' | grep -q ' D malloc_conf$'"

# A second build changes nothing (the cache in the build folder).
start=$(date +%s)
rust_build
check "a second build is fresh" sh -c "! grep -q 'Compiling' '$T/cargo.log'"
echo "# second cargo build: $(($(date +%s) - start)) s"
echo "1..$tn"
