printf '# columns: 1/bytes\n# series: a<b time=1\nmain;x 1\n' | render-flame
