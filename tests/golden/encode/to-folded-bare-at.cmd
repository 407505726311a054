to-folded fixtures/good/bare-at.prof
