render-flame fixtures/bad/series-extra-line.folded
