/* SPDX-License-Identifier: MIT */
/* Growth between two dumps of one process (jeprof-raw --base). */
#ifndef FK_DIFF_H
#define FK_DIFF_H

#include "profile.h"

/* What a difference keeps. */
enum fk_diff_mode {
	FK_DIFF_GROWTH,            /* every value subtracted; stacks whose in-use
				      bytes did not grow dropped (jeprof --base) */
	FK_DIFF_NEGATIVE,          /* every value subtracted; shrinking stacks kept
				      with negative counts (jeprof skips such lines;
				      flamekit's readers accept them in period-1 dumps) */
	FK_DIFF_WINDOW,            /* a scrape window (?seconds=N): accumulated
				      values subtracted, in-use values cur's as they
				      are (not subtracted); stacks with nothing in
				      use and nothing allocated in the window dropped */
};

/* Fills out (new, empty) with the difference from base to cur: stacks are
 * matched by their addresses, each side unbiased with its own period and
 * summed per stack, then subtracted as mode says. The result is a dump
 * with period 1 ("every allocation counted"), whose raw counts are chosen
 * so that unbiasing them gives back the values; maps are cur's (cur must
 * outlive out). Per-thread lines are not carried. Returns 0 or -1 with
 * err. */
int fk_profile_diff(struct fk_profile *out, const struct fk_profile *base,
		    const struct fk_profile *cur, enum fk_diff_mode mode,
		    struct fk_err *err);

#endif
