from-pprof fixtures/bad/pprof-duplicate-mapping.pb
