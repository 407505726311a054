# A device that fails the write (/dev/full): the one error names it, not
# stdout.
to-folded -o /dev/full fixtures/good/tiny.prof
