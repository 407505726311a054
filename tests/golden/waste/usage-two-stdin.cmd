heap-waste -S - - < fixtures/waste/frag.sym
