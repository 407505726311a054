heap-waste --stats fixtures/waste/frag.stats.json fixtures/waste/frag.sym
