render-flame --minwidth 2 --width 600 fixtures/folded/minwidth.folded | sh tests/golden/render/strip-assets
