heap-lifetimes fixtures/bad/life-deep-trace.life
