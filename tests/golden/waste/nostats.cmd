# A jemalloc built without statistics (config.stats false): one sentence, every figure null.
heap-waste --stats fixtures/waste/frag-nostats.stats.json fixtures/waste/frag.sym
