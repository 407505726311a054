printf '# columns: 1/bytes\n# series: 1 time=1.5s\nmain;x 1\n' | render-flame
