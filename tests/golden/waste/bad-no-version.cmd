heap-waste --stats fixtures/bad/waste-no-version.json fixtures/waste/frag.sym
