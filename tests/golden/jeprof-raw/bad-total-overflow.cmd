jeprof-raw fixtures/bad/dump-total-overflow.prof
