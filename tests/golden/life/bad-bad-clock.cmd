heap-lifetimes fixtures/bad/life-bad-clock.life
