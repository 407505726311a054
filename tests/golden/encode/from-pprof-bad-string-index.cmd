from-pprof fixtures/bad/pprof-string-index.pb
