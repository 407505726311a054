heap-lifetimes fixtures/bad/life-no-alloc-trace.life
