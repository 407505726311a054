from-pprof fixtures/bad/pprof-wrong-wire-type.pb
