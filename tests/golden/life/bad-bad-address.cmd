heap-lifetimes fixtures/bad/life-bad-address.life
