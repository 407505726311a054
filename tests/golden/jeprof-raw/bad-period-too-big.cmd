jeprof-raw fixtures/bad/dump-period-too-big.prof
