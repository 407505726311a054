gzip -dc fixtures/pprof/go-cpu.pb.gz | from-pprof -s samples
