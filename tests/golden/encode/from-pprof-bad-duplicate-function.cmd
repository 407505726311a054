from-pprof fixtures/bad/pprof-duplicate-function.pb
