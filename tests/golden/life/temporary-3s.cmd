heap-lifetimes --sysroot fixtures/sysroot --view temporary --max-ms 3000 -f folded fixtures/life/basic.life
