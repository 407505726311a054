heap-lifetimes fixtures/bad/life-no-released.life
