render-flame --sort=size fixtures/folded/merge.folded
