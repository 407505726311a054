printf '# columns: a b<c\nmain;x 1 2\n' | render-flame
