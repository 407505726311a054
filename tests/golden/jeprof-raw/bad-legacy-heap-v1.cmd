jeprof-raw fixtures/bad/dump-legacy-heap-v1.prof
