render-flame fixtures/bad/folded-novalue.folded
