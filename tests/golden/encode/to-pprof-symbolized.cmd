t=$(mktemp) && symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null | to-pprof >$t && go tool pprof -raw $t 2>&1; rm -f $t
