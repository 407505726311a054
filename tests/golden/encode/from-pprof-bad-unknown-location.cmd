from-pprof fixtures/bad/pprof-unknown-location.pb
