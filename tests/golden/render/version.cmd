render-flame --version
