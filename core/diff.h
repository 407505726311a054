/* SPDX-License-Identifier: MIT */
/* Growth between two dumps of one process (jeprof-raw --base). */
#ifndef FK_DIFF_H
#define FK_DIFF_H

#include "profile.h"

/* Fills out (new, empty) with the growth from base to cur: stacks are
 * matched by their addresses, each side unbiased with its own period and
 * summed per stack, then subtracted. The result is a dump with period 1
 * ("every allocation counted"), whose raw counts are chosen so that
 * unbiasing them gives back the difference; maps are cur's (cur must
 * outlive out). Stacks whose in-use bytes did not grow are dropped unless
 * keep_negative, which keeps shrinking stacks with negative counts (jeprof
 * skips such lines; flamekit's readers accept them in period-1 dumps).
 * Per-thread lines are not carried. Returns 0 or -1 with err. */
int fk_profile_diff(struct fk_profile *out, const struct fk_profile *base,
		    const struct fk_profile *cur, int keep_negative,
		    struct fk_err *err);

#endif
