printf '# columns: 1/bytes 2/bytes\n# series: 1\n# series: 2 time=3 rss=100 future_figure=7\nmain;x 1\n' | render-flame
