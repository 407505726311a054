to-folded - < fixtures/good/tiny.prof
