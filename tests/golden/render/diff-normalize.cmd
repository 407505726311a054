render-flame --diff fixtures/folded/diff-base.folded --normalize fixtures/folded/diff-new.folded | sh tests/golden/render/strip-assets
