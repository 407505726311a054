heap-lifetimes --help
