to-folded --value objects fixtures/dumps/fk-basic.prof
