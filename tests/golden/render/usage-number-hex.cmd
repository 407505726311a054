render-flame --width 0x400 fixtures/folded/one.folded
