from-pprof --columns fixtures/pprof/go-heap.pb.gz
