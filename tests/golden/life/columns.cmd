heap-lifetimes --sysroot fixtures/sysroot -f columns fixtures/life/basic.life
