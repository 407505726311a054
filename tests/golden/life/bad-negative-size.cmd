heap-lifetimes fixtures/bad/life-negative-size.life
