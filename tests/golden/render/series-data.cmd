# A series input: the page carries each snapshot's figures as #fkseries
# (unknown figures skipped, unknown ones null) and both palettes.
printf '# columns: 7/bytes 9/bytes\n# series: 7 time=1.5 allocated=300 rss=1000\n# series: 9 time=2.25 allocated=400 active=500 resident=600 mapped=700 retained=8 metadata=9 rss=1200 future=3\nmain;grow_cache 100 200\nmain;spike 50 0\n' | render-flame >"$T/s.svg"
xmllint --noout "$T/s.svg"
sed -n '/<metadata id="fkseries">/,/<\/metadata>/p' "$T/s.svg"
grep -c '\.r5{\|\.c0{' "$T/s.svg"
