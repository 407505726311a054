render-flame fixtures/folded/deep.folded | sh tests/golden/render/strip-assets
