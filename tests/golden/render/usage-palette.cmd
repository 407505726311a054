render-flame --colors nope fixtures/folded/merge.folded
