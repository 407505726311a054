printf '# columns: 1/bytes\n# series: 1 rss=-5\nmain;x 1\n' | render-flame
