heap-lifetimes --sysroot fixtures/sysroot fixtures/life/basic.life
