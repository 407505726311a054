to-folded -c fixtures/dumps/fk-basic.prof
