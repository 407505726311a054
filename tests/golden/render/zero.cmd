render-flame fixtures/folded/zero.folded | sh tests/golden/render/strip-assets
