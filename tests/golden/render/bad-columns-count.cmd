printf '# columns: a b\nmain;x 1 2\nmain;y 1\n' | render-flame
