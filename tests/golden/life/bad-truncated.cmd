heap-lifetimes fixtures/bad/life-truncated.life
