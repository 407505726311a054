symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null | to-pprof >"$T/p.pb.gz"
go tool pprof -raw "$T/p.pb.gz" 2>&1
