# Allocator frames kept by symbolize: to-pprof sets drop_frames, so pprof
# still shows the program's own sites on top.
symbolize --sysroot fixtures/sysroot --keep-allocator-frames fixtures/dumps/fk-basic.prof 2>/dev/null |
	to-pprof >"$T/p.pb.gz"
go tool pprof -top -unit=B "$T/p.pb.gz" 2>&1 | sed 1,4d
