from-pprof fixtures/bad/pprof-unknown-function.pb
