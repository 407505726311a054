heap-waste --stats fixtures/waste/frag-noaccum.stats.json fixtures/waste/frag-noaccum.sym
