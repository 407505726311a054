jeprof-raw fixtures/bad/dump-period-overflow.prof
