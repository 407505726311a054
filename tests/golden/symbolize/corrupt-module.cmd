symbolize --sysroot tests/golden/symbolize/root-corrupt fixtures/dumps/fk-inline.prof
