to-folded -a -v objects fixtures/dumps/fk-basic-accum.prof
