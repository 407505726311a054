heap-waste --stats fixtures/bad/waste-number.json fixtures/waste/frag.sym
