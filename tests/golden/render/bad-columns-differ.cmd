printf '# columns: a b\nmain;x 1 2\n' | render-flame fixtures/folded/merge.folded -
