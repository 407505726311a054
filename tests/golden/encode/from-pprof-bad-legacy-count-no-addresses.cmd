from-pprof fixtures/bad/legacy-count-no-addresses
