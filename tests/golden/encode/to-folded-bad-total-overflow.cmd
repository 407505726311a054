to-folded fixtures/bad/dump-total-overflow.prof
