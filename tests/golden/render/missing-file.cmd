render-flame fixtures/folded/does-not-exist.folded
