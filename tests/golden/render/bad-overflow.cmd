render-flame fixtures/bad/folded-overflow.folded
