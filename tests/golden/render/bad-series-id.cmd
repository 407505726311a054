render-flame fixtures/bad/series-id.folded
