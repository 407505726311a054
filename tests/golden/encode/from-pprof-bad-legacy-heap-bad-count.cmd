from-pprof fixtures/bad/legacy-heap-bad-count
