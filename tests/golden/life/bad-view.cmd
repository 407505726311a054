heap-lifetimes --view weekly fixtures/life/basic.life
