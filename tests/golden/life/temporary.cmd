heap-lifetimes --sysroot fixtures/sysroot --view temporary --max-ms 1 -f folded fixtures/life/basic.life
