jeprof-raw fixtures/bad/dump-stack-without-total.prof
