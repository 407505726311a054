# Statistics printed without bins (opts Jb): one sentence, the sites listed, none blamed.
heap-waste --stats fixtures/waste/frag-nobins.stats.json fixtures/waste/frag.sym
