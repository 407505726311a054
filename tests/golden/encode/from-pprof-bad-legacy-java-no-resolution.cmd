from-pprof fixtures/bad/legacy-java-no-resolution
