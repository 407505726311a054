jeprof-raw fixtures
