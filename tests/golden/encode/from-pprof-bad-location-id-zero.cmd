from-pprof fixtures/bad/pprof-location-id-zero.pb
