render-flame --sort=weight fixtures/folded/merge.folded | sh tests/golden/render/strip-assets
