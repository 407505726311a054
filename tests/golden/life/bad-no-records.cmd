heap-lifetimes fixtures/bad/life-no-records.life
