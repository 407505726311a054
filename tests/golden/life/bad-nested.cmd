heap-lifetimes fixtures/bad/life-nested.life
