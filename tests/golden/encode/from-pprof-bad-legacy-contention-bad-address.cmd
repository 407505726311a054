from-pprof fixtures/bad/legacy-contention-bad-address
