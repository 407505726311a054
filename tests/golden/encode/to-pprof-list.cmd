to-pprof fixtures/dumps/fk-basic-accum.prof | from-pprof --list
