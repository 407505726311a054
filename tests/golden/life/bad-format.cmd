heap-lifetimes --format flame fixtures/life/basic.life
