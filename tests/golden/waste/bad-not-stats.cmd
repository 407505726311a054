heap-waste --stats fixtures/bad/waste-not-stats.json fixtures/waste/frag.sym
