heap-lifetimes --sysroot fixtures/sysroot --view oldest --min-s 5 -f folded fixtures/life/basic.life
