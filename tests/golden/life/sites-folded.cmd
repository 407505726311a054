heap-lifetimes --sysroot fixtures/sysroot -f folded fixtures/life/basic.life
