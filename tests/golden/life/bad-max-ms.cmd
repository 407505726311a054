heap-lifetimes --max-ms -1 fixtures/life/basic.life
