jeprof-raw fixtures/bad/dump-address-without-0x.prof
