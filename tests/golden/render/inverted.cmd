render-flame --inverted --colors hot --hash fixtures/folded/merge.folded | sh tests/golden/render/strip-assets
