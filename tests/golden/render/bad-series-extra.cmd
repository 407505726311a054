printf '# columns: 1/bytes\n# series: 1\n# series: 2\nmain;x 1\n' | render-flame
