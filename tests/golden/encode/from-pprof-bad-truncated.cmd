from-pprof fixtures/bad/pprof-truncated.pb
