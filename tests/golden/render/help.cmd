render-flame --help
