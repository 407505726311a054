heap-lifetimes --sysroot fixtures/sysroot --view oldest --min-s 0 --format json fixtures/life/basic.life
