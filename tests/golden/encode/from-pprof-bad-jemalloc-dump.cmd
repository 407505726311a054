from-pprof fixtures/bad/pprof-jemalloc-dump.pb
