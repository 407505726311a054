render-flame fixtures/folded/merge.folded > /dev/full
