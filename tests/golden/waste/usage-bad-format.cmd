heap-waste --format pprof --stats fixtures/waste/frag.stats.json fixtures/waste/frag.sym
