to-folded --value pages fixtures/good/tiny.prof
