# SPDX-License-Identifier: MIT
# Shared helpers of tests/rust/*.t (sourced, not run): the hook tests'
# helpers (tests/hook/hooklib.sh: TAP, bounded curl, other_user, cleanup),
# the crate's examples built offline (rust_build) and started
# (start_service).
. "$(dirname "$0")/../hook/hooklib.sh"

case "$B" in /*) ;; *) B=$(pwd)/$B ;; esac
# The crate's builds live in the build folder: a second make test
# rebuilds nothing. Its C half is made there too (FLAMEKIT_BUILD_DIR).
export CARGO_TARGET_DIR="$B/rust-target" FLAMEKIT_BUILD_DIR="$B"
EX=$CARGO_TARGET_DIR/release/examples
CRATE=$(cd "$(dirname "$0")/../../rust/flamekit" && pwd)

# A sanitizer build (.ci/run's build/asan) cannot be linked into a Rust
# program without the sanitizer's runtime: its tests ran in the plain
# build already.
rust_sanitized() {
	readelf -d "$B/libflamekit-hook.so.0" 2>/dev/null | grep -q 'libasan\|libubsan'
}
skip_sanitized() {
	if rust_sanitized; then
		echo "ok 1 - $1 # skip sanitizer build: the crate links the plain build's objects"
		exit 0
	fi
}

# rust_build: both examples, each with its own jemalloc (a program has one
# of the two forms), offline against Debian's crates; cargo's output in
# $T/cargo.log.
rust_build() {
	(cd "$CRATE" &&
	 cargo build --release --offline --features shared-jemalloc --example seed &&
	 cargo build --release --offline --features static-jemalloc --example hyper_service) \
		>"$T/cargo.log" 2>&1
}

# start_service PROG [ENV=VALUE...]: runs an example on a free loopback
# port, waits for its "listening on" line; sets HOST_PID, HOST_OUT, PORT
# and U (its base URL).
start_service() {
	prog=$1; shift
	HOST_OUT=$T/$(basename "$prog").out; : >"$HOST_OUT"
	env "$@" "$prog" 127.0.0.1:0 >"$HOST_OUT" 2>"$T/host.err" </dev/null &
	HOST_PID=$!
	PIDS="$PIDS $HOST_PID"
	wait_line '^listening on ' || return 1
	PORT=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$HOST_OUT")
	U=http://127.0.0.1:$PORT
}

# pprof_top FILE: go tool pprof -top of a profile, into $T/top.
pprof_top() {
	PPROF_TMPDIR=$T HOME=$T go tool pprof -top "$1" >"$T/top" 2>&1
}
