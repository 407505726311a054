heap-lifetimes --sysroot fixtures/sysroot -v temporary -f folded - < fixtures/life/basic.life
