to-folded fixtures/dumps/fk-basic-legacy.prof
