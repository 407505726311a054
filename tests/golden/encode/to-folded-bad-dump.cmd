to-folded fixtures/bad/dump-bad-hex.prof
