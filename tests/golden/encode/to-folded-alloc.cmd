to-folded --alloc fixtures/dumps/fk-basic-accum.prof
