to-folded fixtures/dumps/fk-basic.prof
