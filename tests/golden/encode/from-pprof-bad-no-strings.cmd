from-pprof fixtures/bad/pprof-no-strings.pb
