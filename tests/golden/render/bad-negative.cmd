render-flame fixtures/bad/folded-negative.folded
