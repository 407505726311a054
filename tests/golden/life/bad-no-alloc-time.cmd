heap-lifetimes fixtures/bad/life-no-alloc-time.life
