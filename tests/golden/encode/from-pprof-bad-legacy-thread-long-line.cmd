from-pprof fixtures/bad/legacy-thread-long-line
