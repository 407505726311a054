jeprof-raw fixtures/bad/dump-gperf-address-without-0x.prof
