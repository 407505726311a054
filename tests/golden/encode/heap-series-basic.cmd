# The two prof.dump dumps of one fk-basic run as a series: the later dump
# given first, both named as jemalloc names manual dumps (seq 2 and 10, so
# a name sort would put 10 first); columns in sequence order, stacks
# merged across the two (those only in the later dump show 0 before), the
# same lines and values as symbolize | to-folded of each dump; each
# unusable module told once for both dumps.
cp fixtures/dumps/fk-basic-mid.prof "$T/fk.4242.2.m0.heap"
cp fixtures/dumps/fk-basic.prof "$T/fk.4242.10.m1.heap"
heap-series --sysroot fixtures/sysroot "$T/fk.4242.10.m1.heap" "$T/fk.4242.2.m0.heap"
