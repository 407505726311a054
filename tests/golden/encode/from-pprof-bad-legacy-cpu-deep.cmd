from-pprof fixtures/bad/legacy-cpu-deep.cpu
