# A bad stack line after two origin lines and a columns line is line 4.
printf '# info: pid=1\n# info: host=h\n# columns: a/bytes\nmain;a\n' | render-flame
