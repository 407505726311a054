to-folded fixtures/dumps/no-such.prof
