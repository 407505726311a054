to-pprof fixtures/dumps/fk-threads.prof | from-pprof
