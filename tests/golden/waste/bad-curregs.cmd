heap-waste --stats fixtures/bad/waste-curregs.json fixtures/waste/frag.sym
