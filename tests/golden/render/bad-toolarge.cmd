render-flame fixtures/bad/folded-toolarge.folded
