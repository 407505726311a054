render-flame --width abc fixtures/folded/merge.folded
