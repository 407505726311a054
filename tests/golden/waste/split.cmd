heap-waste --stats fixtures/waste/mixed.stats.json --lifetimes fixtures/waste/mixed.life fixtures/waste/mixed.sym
