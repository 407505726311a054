from-pprof fixtures/bad/pprof-too-deep.pb
