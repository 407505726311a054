from-pprof fixtures/bad/legacy-java-bad-location
