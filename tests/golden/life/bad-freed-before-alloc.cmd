heap-lifetimes fixtures/bad/life-freed-before-alloc.life
