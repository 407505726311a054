from-pprof fixtures/bad/pprof-negative-string-index.pb
