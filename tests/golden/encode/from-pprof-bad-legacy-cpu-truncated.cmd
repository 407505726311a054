from-pprof fixtures/bad/legacy-cpu-truncated.cpu
