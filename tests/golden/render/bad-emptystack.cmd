render-flame fixtures/bad/folded-emptystack.folded
