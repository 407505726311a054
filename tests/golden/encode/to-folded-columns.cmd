to-folded --columns fixtures/dumps/fk-basic-accum.prof
