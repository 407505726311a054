from-pprof fixtures/bad/pprof-truncated-gzip.pb.gz
