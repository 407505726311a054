jeprof-raw fixtures/bad/dump-no-header-totals.prof
