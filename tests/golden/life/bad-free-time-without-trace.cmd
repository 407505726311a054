heap-lifetimes fixtures/bad/life-free-time-without-trace.life
