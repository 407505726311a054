from-pprof fixtures/bad/legacy-contention-unknown-attribute
