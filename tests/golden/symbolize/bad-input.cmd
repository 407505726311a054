symbolize fixtures/bad/dump-bad-hex.prof
