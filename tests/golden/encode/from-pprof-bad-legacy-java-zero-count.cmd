from-pprof fixtures/bad/legacy-java-zero-count
