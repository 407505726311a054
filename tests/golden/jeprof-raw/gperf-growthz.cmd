jeprof-raw -s fixtures/good/gperf-growthz.prof
