heap-waste --stats fixtures/bad/waste-bad-type.json fixtures/waste/frag.sym
