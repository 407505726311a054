heap-lifetimes fixtures/bad/life-no-now.life
