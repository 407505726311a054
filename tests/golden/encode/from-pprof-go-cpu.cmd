from-pprof fixtures/pprof/go-cpu.pb.gz
