render-flame --countname samples fixtures/folded/huge.folded | sh tests/golden/render/strip-assets
