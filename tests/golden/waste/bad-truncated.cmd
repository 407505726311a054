heap-waste --stats fixtures/bad/waste-truncated.json fixtures/waste/frag.sym
