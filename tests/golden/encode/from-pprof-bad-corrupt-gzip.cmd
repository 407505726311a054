from-pprof fixtures/bad/pprof-corrupt-gzip.pb.gz
