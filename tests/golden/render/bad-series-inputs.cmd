cd "$T"; printf '# columns: 1/bytes 2/bytes\n# series: 1\n# series: 2\nmain;x 1 2\n' >a; render-flame a a
