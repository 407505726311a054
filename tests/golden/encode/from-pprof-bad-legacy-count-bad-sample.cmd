from-pprof fixtures/bad/legacy-count-bad-sample
