heap-waste --stats fixtures/bad/waste-nbins.json fixtures/waste/frag.sym
