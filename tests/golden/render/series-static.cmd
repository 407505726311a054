# Without script, a series' page draws its newest snapshot (the page opens
# on it): "gone;leaf" has a value in the first two snapshots only, and
# grow_cache spans the whole width; the frame table keeps the columns in
# their order (decoded by tests/browser/timeline.t).
printf '# columns: 1/bytes 2/bytes 3/bytes\n# series: 1\n# series: 2\n# series: 3\nmain;grow_cache 1000 2000 4000\nmain;gone;leaf 500 200 0\n' |
	render-flame | sh tests/golden/render/strip-assets
