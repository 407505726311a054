render-flame --minwidth 1% fixtures/folded/minwidth.folded | sh tests/golden/render/strip-assets
