from-pprof fixtures/bad/pprof-unknown-mapping.pb
