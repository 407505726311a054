render-flame fixtures/folded/crlf.folded | sh tests/golden/render/strip-assets
