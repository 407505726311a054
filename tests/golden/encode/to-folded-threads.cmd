to-folded --threads fixtures/dumps/fk-threads.prof
