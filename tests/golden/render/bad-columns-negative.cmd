printf '# columns: a b\nmain;x 1 -2\n' | render-flame
