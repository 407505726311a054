to-folded --alloc fixtures/dumps/fk-basic.prof
