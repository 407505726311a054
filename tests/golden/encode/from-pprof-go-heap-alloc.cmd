from-pprof -s alloc_space fixtures/pprof/go-heap.pb.gz
