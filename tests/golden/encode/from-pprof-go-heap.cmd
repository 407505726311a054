from-pprof fixtures/pprof/go-heap.pb.gz
