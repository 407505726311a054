from-pprof fixtures/bad/pprof-total-overflow.pb
