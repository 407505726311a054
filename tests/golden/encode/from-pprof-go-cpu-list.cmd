from-pprof -l fixtures/pprof/go-cpu.pb.gz
