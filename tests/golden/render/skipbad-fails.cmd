render-flame fixtures/folded/skipbad.folded
