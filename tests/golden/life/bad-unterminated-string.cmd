heap-lifetimes fixtures/bad/life-unterminated-string.life
