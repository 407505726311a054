heap-waste --stats fixtures/bad/waste-deep.json fixtures/waste/frag.sym
