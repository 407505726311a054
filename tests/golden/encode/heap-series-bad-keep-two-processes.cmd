# --keep-order takes the order given but still refuses dumps whose names
# say two processes (it skipped the check); a name that says none is not
# checked.
top=$PWD
cp fixtures/dumps/fk-basic-mid.prof "$T/fk.4242.2.m0.heap"
cp fixtures/dumps/fk-basic.prof "$T/fk.4343.10.m1.heap"
cp fixtures/dumps/fk-basic.prof "$T/other.heap"
cd "$T"
heap-series -k --sysroot "$top/fixtures/sysroot" other.heap fk.4242.2.m0.heap fk.4343.10.m1.heap
