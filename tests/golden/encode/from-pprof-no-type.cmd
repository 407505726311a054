from-pprof -s wall fixtures/pprof/go-cpu.pb.gz
