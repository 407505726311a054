#!/bin/sh
# SPDX-License-Identifier: MIT
# None of the hook's own work is ever sampled (issue 11): with
# prof_accum:true at a fine sampling rate, after several flame and pprof
# renderings (the symbolizer's threads, libdw, libmicrohttpd, zlib all
# allocate), no sample of ANY type (in-use or accumulated, bytes or
# objects) has a frame of the project's code or of the libraries it runs:
# checked by address against the dump's own maps and by name. On
# fk-jestatic (static jemalloc, which also serves the hook's mallocs),
# fk-rjem (Rust, _rjem_ jemalloc) and hook-alloc-prog (libjemalloc.so.2;
# ownwork.t checks it by name, this by address too).
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
ACC=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:10
export PPROF_TMPDIR=$T HOME=$T

# ownframes SYMBOLIZED: one line per frame of our own work in a sample
# with any non-zero value ("module+0xoff" or the name), none when clean;
# "no stacks" when the profile has none.
ownframes() {
	python3 - "$1" <<'EOF'
import re, sys
own_mod = re.compile(r"libflamekit-hook|libmicrohttpd|libdw[-.]|libelf[-.]|libdeflate|"
                     r"libz\.so|libprotobuf-c|libxml2|liblzma|libbz2|libzstd|libgnutls")
own_name = re.compile(r"^(fk_(?!rjem::)|MHD_|dwfl_|__libdwfl|dwarf_|__libdw|elf_|gelf_|"
                      r"protobuf_c_|xml[A-Z]|deflate|inflate|start_thread$|clone3?$)")
text = open(sys.argv[1], errors="replace").read().split("\n")
names = {}
for l in text:
    m = re.match(r"^0x([0-9a-f]+) (.*)$", l)
    if m:
        names[int(m.group(1), 16)] = m.group(2).split("--")
heap = text.index("--- heap") if "--- heap" in text else 0
maps, stacks, cur, inmaps = [], [], None, False
for l in text[heap:]:
    if l == "MAPPED_LIBRARIES:":
        inmaps = True
    elif inmaps:
        f = l.split(None, 5)
        if len(f) == 6:
            a, b = f[0].split("-")
            maps.append((int(a, 16), int(b, 16), f[5]))
    elif l.startswith("@"):
        cur = [int(x, 16) for x in l[1:].split()]
    elif cur is not None and l.startswith("  t*:"):
        vals = [int(x) for x in re.findall(r"\d+", l[5:])]
        if any(vals):
            stacks.append(cur)
        cur = None
if not stacks:
    print("no stacks")
found = set()
for st in stacks:
    for a in st:
        for lo, hi, path in maps:
            if lo <= a < hi and own_mod.search(path.rsplit("/", 1)[-1]):
                found.add("%s+0x%x" % (path.rsplit("/", 1)[-1], a - lo))
        for n in names.get(a, []):
            if own_name.search(n):
                found.add(n)
for f in sorted(found):
    print(f)
EOF
}

# clean NAME PROG FUNC ENV...
clean() {
	name=$1 prog=$2 func=$3; shift 3
	U=http://127.0.0.1:$port
	if ! start_prog "$prog" "$@" || ! wait_http "$U/internal/heap/settings"; then
		notok "$name: started and serving; stderr: $(head -c 300 "$T/host.err")"
		kill -9 "$HOST_PID" 2>/dev/null; exec 3>&-
		return 0
	fi
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
	is "$name: enabled" "$(code)" 200
	check "$name: grows 20 blocks" host_cmd "grow 20" '^grown 20$'
	for i in 1 2 3; do
		cu "$U/internal/heap?format=flame" >/dev/null
		cu "$U/debug/pprof/heap" >/dev/null
		cu "$U/internal/heap?format=pprof" >/dev/null
	done
	is "$name: renderings served" "$(code)" 200
	check "$name: grows 20 more" host_cmd "grow 20" '^grown 40$'
	go tool pprof -top "$U/debug/pprof/heap" >/dev/null 2>&1
	cu "$U/internal/heap?format=symbolized" >"$T/sym"
	is "$name: symbolized profile is 200" "$(code)" 200
	for v in "--inuse --value bytes" "--inuse --value objects" "--alloc --value bytes" "--alloc --value objects"; do
		"$B/to-folded" $v "$T/sym" >"$T/fold" 2>"$T/fold.err"
		is "$name: to-folded $v reads it" "$?" 0
		check "$name: $v names $func (the profile is not empty)" grep -q "$func" "$T/fold"
	done
	"$B/jeprof-raw" --stats "$T/sym" >/dev/null 2>"$T/st"
	like "$name: accumulated values are there (prof_accum)" "$(awk '/^alloc_bytes:/ { print $2 }' "$T/st")" '^[1-9]'
	own=$(ownframes "$T/sym")
	is "$name: no frame of our own work in any sample type" "$(printf '%s' "$own" | head -c 400 | tr '\n' ' ')" ""
	check "$name: exits cleanly" stop_host
}

port=$(free_port)
clean fk-jestatic "$FX/fk-jestatic" jes_grow_cache \
	LD_PRELOAD="$HOOK" MALLOC_CONF=$ACC FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
clean fk-rjem "$FX/fk-rjem" rjem_grow_cache \
	LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=$ACC FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
clean hook-alloc-prog "$B/hook-alloc-prog" hog_grow_cache \
	LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ACC FLAMEKIT_HTTP=127.0.0.1:$port
