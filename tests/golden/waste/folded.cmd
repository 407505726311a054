heap-waste --format folded --stats fixtures/waste/frag.stats.json fixtures/waste/frag.sym
