render-flame fixtures/folded/empty.folded | sh tests/golden/render/strip-assets
