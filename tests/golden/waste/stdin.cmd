# The stats on standard input, the dump a file; the output a file.
heap-waste -o "$T/w.json" -S - fixtures/waste/frag.sym < fixtures/waste/frag.stats.json
cmp "$T/w.json" tests/golden/waste/json.out
