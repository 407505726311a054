/* SPDX-License-Identifier: MIT */
/* Writing a heap profile as pprof: gzipped profile.proto (see
 * encode/profile.proto and man/to-pprof.1), byte-for-byte deterministic. */
#ifndef FK_PPROF_ENC_H
#define FK_PPROF_ENC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "profile.h"

struct fk_pprof_opts {
	int threads;                   /* one sample per thread, "thread" label */
	int64_t time_nanos;            /* Profile.time_nanos; 0 leaves it unset */
	const char *source;            /* input name for the comment; NULL = p->source */
	int level;                     /* gzip level 1..9; 0 = 6, or 3 past 4 MiB */
};

/* Encodes p (raw or symbolized, as read by fk_profile_parse) into a new
 * malloc'd buffer holding the gzipped profile (*out, *outlen; the caller
 * frees it). o may be NULL for the defaults. Sample types inuse_objects/
 * count and inuse_space/bytes (alloc_objects, alloc_space first when
 * p->has_accum), values unbiased per stack and rounded; one Location per
 * (address, resolution); Functions deduplicated; mappings from the dump's
 * maps, with the build-ids symbolize recorded or, for a raw profile, those
 * of the files at the mapped paths when they still have the mapped inode. Returns 0, or -1
 * with err. */
int fk_pprof_encode(const struct fk_profile *p, const struct fk_pprof_opts *o,
		    unsigned char **out, size_t *outlen, struct fk_err *err);

/* Same, written to out in one piece (nothing is written on failure).
 * Returns 0, or -1 with err (including a write error). */
int fk_pprof_write(const struct fk_profile *p, const struct fk_pprof_opts *o,
		   FILE *out, struct fk_err *err);

#endif
