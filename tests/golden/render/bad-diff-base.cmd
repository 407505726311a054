render-flame --diff fixtures/bad/folded-novalue.folded fixtures/folded/merge.folded
