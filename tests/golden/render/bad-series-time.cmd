render-flame fixtures/bad/series-time.folded
