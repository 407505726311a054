# The origin's lines, blanks at a value's ends left out, before the
# columns line; an error's line number counts them.
printf '# info: program= /usr/bin/demo --port 80 \r\n# info:pid=42\n# columns: a/bytes\nmain;x 1\n' | render-flame | sh tests/golden/render/strip-assets
