jeprof-raw -s fixtures/good/gperf-heapz.prof
