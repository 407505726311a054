printf '# columns: 1/bytes\n# series: 1 rss\nmain;x 1\n' | render-flame
