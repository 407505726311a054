# A real jemalloc 5.3.1 dump with prof_bt_max:256 (fixtures/RECIPES.md):
# stacks of 49 and 209 frames and one jemalloc cut at 256 are read whole,
# symbolized and folded; runs of fk_deep shown as "fk_deep xN".
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-deep.prof | to-folded |
	perl -pe 's/((?:;|^)fk_deep(?=;))+/my $m = $&; my $n = () = $m =~ m|fk_deep|g; ($m =~ m|^;| ? ";" : "") . "fk_deep x$n"/e'
