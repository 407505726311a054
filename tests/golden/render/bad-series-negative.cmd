render-flame fixtures/bad/series-negative.folded
