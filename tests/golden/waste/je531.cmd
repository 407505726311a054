heap-waste --stats fixtures/waste/frag531.stats.json fixtures/waste/frag531.sym
