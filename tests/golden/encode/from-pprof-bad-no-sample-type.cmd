from-pprof fixtures/bad/pprof-no-sample-type.pb
