from-pprof fixtures/bad/legacy-cpu-bad-maps.cpu
