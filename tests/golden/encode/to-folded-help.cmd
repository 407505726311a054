to-folded --help
