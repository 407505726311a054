render-flame fixtures/folded/unicode.folded | sh tests/golden/render/strip-assets
