from-pprof fixtures/bad/pprof-empty.pb
