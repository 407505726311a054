render-flame fixtures/folded/merge.folded fixtures/folded/one.folded | sh tests/golden/render/strip-assets
