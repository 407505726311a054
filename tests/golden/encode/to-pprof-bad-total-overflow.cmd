to-pprof -f fixtures/bad/dump-total-overflow.prof
