# An origin line without KEY=VALUE (man/render-flame.1, "Origin").
printf '# info: pid=1\n# info: program /usr/bin/x\nmain;a 1\n' | render-flame
