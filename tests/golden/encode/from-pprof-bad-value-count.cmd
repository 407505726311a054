from-pprof fixtures/bad/pprof-value-count.pb
