heap-lifetimes --sysroot fixtures/sysroot --view freed -f folded fixtures/life/basic.life
