render-flame --minwidth 1%% fixtures/folded/one.folded
