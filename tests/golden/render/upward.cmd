render-flame --upward fixtures/folded/merge.folded | sh tests/golden/render/strip-assets
