render-flame fixtures/bad/folded-float.folded
