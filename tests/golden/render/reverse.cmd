render-flame --reverse fixtures/folded/merge.folded | sh tests/golden/render/strip-assets
