render-flame fixtures/folded/hostile.folded | sh tests/golden/render/strip-assets
