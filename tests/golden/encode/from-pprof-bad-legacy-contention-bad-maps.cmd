from-pprof fixtures/bad/legacy-contention-bad-maps
