render-flame --flamechart fixtures/folded/crlf.folded | sh tests/golden/render/strip-assets
