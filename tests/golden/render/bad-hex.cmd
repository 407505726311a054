render-flame fixtures/bad/folded-hex.folded
