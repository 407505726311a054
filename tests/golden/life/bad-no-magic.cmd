heap-lifetimes fixtures/bad/life-no-magic.life
