to-pprof fixtures/good/tiny.prof >"$T/p.pb.gz"
go tool pprof -symbolize=none -raw "$T/p.pb.gz" 2>&1
