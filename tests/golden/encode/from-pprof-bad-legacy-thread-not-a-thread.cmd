from-pprof fixtures/bad/legacy-thread-not-a-thread
