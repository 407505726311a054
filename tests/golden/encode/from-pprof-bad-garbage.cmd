from-pprof fixtures/bad/pprof-garbage.pb
