from-pprof fixtures/bad/pprof-label-key-index.pb
