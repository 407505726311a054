from-pprof fixtures/bad/pprof-string0-not-empty.pb
