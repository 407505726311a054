render-flame --skip-bad fixtures/folded/skipbad.folded | sh tests/golden/render/strip-assets
