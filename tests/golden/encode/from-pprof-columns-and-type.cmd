from-pprof -c -s inuse_space fixtures/pprof/go-heap.pb.gz
