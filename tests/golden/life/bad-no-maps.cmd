heap-lifetimes fixtures/bad/life-no-maps.life
