render-flame --frobnicate
