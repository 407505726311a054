t=$(mktemp) && symbolize --sysroot fixtures/sysroot --keep-allocator-frames fixtures/dumps/fk-basic.prof 2>/dev/null | to-pprof >$t && go tool pprof -top -unit=B $t 2>&1 | sed 1,4d; rm -f $t
