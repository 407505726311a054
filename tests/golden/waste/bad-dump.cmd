heap-waste --stats fixtures/waste/frag.stats.json fixtures/bad/dump-bad-magic.prof
