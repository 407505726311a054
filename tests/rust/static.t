#!/bin/sh
# SPDX-License-Identifier: MIT
# The static _rjem_ case: the hyper 0.14 service
# (rust/flamekit/examples/hyper_service.rs) whose global allocator is
# jemalloc-sys's static, prefixed jemalloc, started with prof:true by
# flamekit::rjem_malloc_conf!. The hook finds _rjem_mallctl in the
# program's symbol table with nothing passed (the hook is linked into the
# same executable); a copy stripped of it says so in one sentence, and
# works once the program hands _rjem_mallctl over (flamekit::set_mallctl).
. "$(dirname "$0")/rustlib.sh"
skip_sanitized "the static _rjem_ service"

check "crate and examples build" rust_build
check "hyper service starts" start_service "$EX/hyper_service"
is "its own route" "$(cu "$U/hello")" hello

s=$(cu "$U/internal/heap/settings")
is "status: 200" "$(code)" 200
is "found with nothing passed: _rjem_mallctl" "$(jfield "$s" mallctl)" _rjem_mallctl
is "from the executable's .symtab" "$(jfield "$s" mallctl_source)" .symtab
is "prof:true from _rjem_malloc_conf" "$(jfield "$s" profiling_started)" true
is "disabled at start (prof_active:false)" "$(jfield "$s" enabled)" false

s=$(cu -X POST "$U/internal/heap/settings?enabled=true")
is "enable: enabled" "$(jfield "$s" enabled)" true
like "the service opens sessions while sampling" "$(cu -X POST "$U/sessions?n=3000")" '^3000 sessions'
cu "$U/internal/heap" >"$T/p.pb.gz"
is "/internal/heap: 200" "$(code)" 200
pprof_top "$T/p.pb.gz"
check "pprof: hyper_service::hyper_new_session, demangled" grep -q ' hyper_service::hyper_new_session$' "$T/top"
check "pprof: its caller hyper_service::hyper_open_sessions" grep -q ' hyper_service::hyper_open_sessions$' "$T/top"
cu "$U/internal/heap?format=flame" >"$T/f.svg"
check "flame: valid XML (xmllint)" xmllint --noout "$T/f.svg"
check "flame: names hyper_new_session" grep -q 'hyper_service::hyper_new_session' "$T/f.svg"
s=$(cu -X POST "$U/internal/heap/settings?enabled=false")
is "disable: disabled" "$(jfield "$s" enabled)" false
kill "$HOST_PID"

# Stripped of its symbol table: nothing to find, said in one sentence.
strip --strip-all -o "$T/hyper_stripped" "$EX/hyper_service"
check "stripped copy starts" start_service "$T/hyper_stripped"
s=$(cu "$U/internal/heap/settings")
like "stripped: the problem names _rjem_mallctl and fk_hook_set_mallctl" "$(jfield "$s" problem)" '_rjem_mallctl.*fk_hook_set_mallctl'
kill "$HOST_PID"
check "stripped copy starts, handing _rjem_mallctl over" start_service "$T/hyper_stripped" HYPER_SERVICE_SET_MALLCTL=1
s=$(cu -X POST "$U/internal/heap/settings?enabled=true")
is "handed over: enabled" "$(jfield "$s" enabled)" true
is "handed over: profiling started" "$(jfield "$s" profiling_started)" true
cu -X POST "$U/sessions?n=2000" >/dev/null
cu "$U/internal/heap?format=folded" >"$T/folded"
is "handed over: a profile" "$(code)" 200
# No symbol table: the frames are addresses in the program, but there are
# samples of its 2000 sessions (4 MB).
check "handed over: samples" grep -q 'hyper_stripped' "$T/folded"
echo "1..$tn"
