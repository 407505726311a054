render-flame fixtures/folded/one.folded | sh tests/golden/render/strip-assets
