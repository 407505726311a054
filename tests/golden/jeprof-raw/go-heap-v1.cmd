jeprof-raw -s fixtures/good/go-heap-v1.prof
