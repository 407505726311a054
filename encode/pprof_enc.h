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

struct fk_pprof_memo;

struct fk_pprof_opts {
	int threads;                   /* one sample per thread, "thread" label */
	int64_t time_nanos;            /* Profile.time_nanos; 0 leaves it unset */
	int64_t duration_nanos;        /* Profile.duration_nanos (a window); 0 = a snapshot */
	const char *source;            /* input name for the comment; NULL = p->source */
	const char *note;              /* one more comment line, or NULL */
	int level;                     /* gzip level 1..9; 0 = 6, or 3 past 4 MiB */
	int accum;                     /* the alloc_* types even when no stack has
					  accumulated counts (jemalloc runs with
					  prof_accum, nothing was allocated yet) */
	int default_alloc;             /* default_sample_type alloc_space (Go's allocs
					  profile) when the alloc_* types are there */
	size_t max_samples;            /* > 0: at most this many samples, the lightest
					  stacks merged into common prefixes
					  (totals exact, merged samples unlabelled) */
	struct fk_pprof_memo *memo;    /* kept between encodings of one heap, or NULL */
};

/* What an encoding keeps for the next of the same heap (the hook's
 * repeated scrapes): the sample limit's trie, used again when the stacks
 * are the same and only their values changed. The output is the same
 * with or without it. At most budget bytes. NULL when out of memory. */
struct fk_pprof_memo *fk_pprof_memo_new(size_t budget);
void fk_pprof_memo_free(struct fk_pprof_memo *m);
size_t fk_pprof_memo_bytes(const struct fk_pprof_memo *m);

/* Encodes p (raw or symbolized, as read by fk_profile_parse) into a new
 * malloc'd buffer holding the gzipped profile (*out, *outlen; the caller
 * frees it). o may be NULL for the defaults. Sample types inuse_objects/
 * count and inuse_space/bytes (alloc_objects, alloc_space first when
 * p->has_accum or o->accum), values unbiased per stack and rounded; every
 * string valid UTF-8 (bytes that are not replaced by U+FFFD); ids from 1; one Location per
 * (address, resolution); Functions deduplicated; mappings from the dump's
 * maps, with the build-ids symbolize recorded or, for a raw profile, those
 * of the files at the mapped paths when they still have the mapped inode. Returns 0, or -1
 * with err. */
int fk_pprof_encode(const struct fk_profile *p, const struct fk_pprof_opts *o,
		    unsigned char **out, size_t *outlen, struct fk_err *err);

/* A profile encoded once and stamped with its time for each copy (the
 * hook's scrapes of a heap that did not change): the message less
 * time_nanos and duration_nanos, compressed and kept, and a stamp that
 * compresses those two fields alone and puts them after the rest in one
 * gzip member. A stamp of a body is the profile fk_pprof_encode makes with
 * those times (the same fields and values; the bytes differ). */
struct fk_pprof_body;

/* Encodes p into a new body (o's times are not used). Returns 0, or -1
 * with err. */
int fk_pprof_encode_body(const struct fk_profile *p, const struct fk_pprof_opts *o,
			 struct fk_pprof_body **out, struct fk_err *err);

/* The gzipped profile of b with these times (0 leaves a field unset), into
 * a malloc'd *out. Returns 0, or -1 with err. */
int fk_pprof_stamp(const struct fk_pprof_body *b, int64_t time_nanos,
		   int64_t duration_nanos, unsigned char **out, size_t *outlen,
		   struct fk_err *err);

/* The bytes b holds. */
size_t fk_pprof_body_size(const struct fk_pprof_body *b);

/* Frees b. NULL is a no-op. */
void fk_pprof_body_free(struct fk_pprof_body *b);

/* Same, written to out in one piece (nothing is written on failure).
 * Returns 0, or -1 with err (including a write error). */
int fk_pprof_write(const struct fk_profile *p, const struct fk_pprof_opts *o,
		   FILE *out, struct fk_err *err);

#endif
