to-folded fixtures/good/tiny.prof fixtures/good/tiny.prof
