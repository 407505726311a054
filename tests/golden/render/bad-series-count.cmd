printf '# columns: 1/bytes 2/bytes\n# series: 1\nmain;x 1 2\n' | render-flame
