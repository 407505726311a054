# A lifetimes file that is not one: the error names it.
heap-waste -S fixtures/waste/mixed.stats.json -l fixtures/waste/mixed.stats.json fixtures/waste/mixed.sym
