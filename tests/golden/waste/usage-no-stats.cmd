heap-waste fixtures/waste/frag.sym
