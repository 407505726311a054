jeprof-raw fixtures/bad/dump-second-total.prof
