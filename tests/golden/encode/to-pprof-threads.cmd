to-pprof --threads fixtures/dumps/fk-threads.prof >"$T/p.pb.gz"
go tool pprof -symbolize=none -raw "$T/p.pb.gz" 2>&1 | sed -n "/^Samples/,/^Locations/p"
