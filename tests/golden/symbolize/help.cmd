symbolize --help
