jeprof-raw fixtures/does-not-exist.prof
