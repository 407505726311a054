/* SPDX-License-Identifier: MIT */
/* Reading pprof profiles (gzipped or plain profile.proto, from any
 * producer: Go, Parca, flamekit) and turning them into folded stacks. */
#ifndef FK_PPROF_DEC_H
#define FK_PPROF_DEC_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

struct fk_pprof;

/* Decodes data[0..len) (gzip detected by its magic bytes; google/pprof's
 * legacy text and binary CPU formats, encode/legacy.c, become the message
 * they describe, with go tool pprof's values) and validates it
 * as pprof does and a little more: string_table[0] is "", every string
 * index is in range, ids are non-zero and unique, every referenced mapping,
 * location and function exists, every sample has one value per sample
 * type, at most FK_MAX_DEPTH_ANY locations a sample. data is borrowed for
 * the call only. On success *out is a new profile to free with
 * fk_pprof_free; on failure returns -1 with err (no line, but a legacy
 * profile's errors name their line or byte offset). */
int fk_pprof_read(const void *data, size_t len, struct fk_pprof **out,
		  struct fk_err *err);

/* Frees pp. NULL is a no-op. */
void fk_pprof_free(struct fk_pprof *pp);

/* Number of sample types, and the name ("inuse_space") and unit of
 * type i; strings are owned by pp. */
size_t fk_pprof_ntypes(const struct fk_pprof *pp);
const char *fk_pprof_type_name(const struct fk_pprof *pp, size_t i);
const char *fk_pprof_type_unit(const struct fk_pprof *pp, size_t i);

/* The index of the sample type named type; when type is NULL, the
 * profile's default_sample_type if it names one, else the last type.
 * Returns -1 with err when there is no such type (or no type at all). */
int fk_pprof_pick_type(const struct fk_pprof *pp, const char *type,
		       struct fk_err *err);

/* Writes the folded stacks of sample type index ti: per sample, its
 * locations root first, each location's inline lines outermost first, named
 * by their function's name (else system name); a location without lines is
 * named "BASENAME+0xOFFSET" after its mapping ("[anon]+0xADDR" without).
 * Equal lines merge, lines sort bytewise, zero totals are left out. The
 * output is built in memory and written at once. ti == SIZE_MAX writes
 * every sample type, one value column each, under a "# columns: TYPE/UNIT
 * ..." header (the multi-column extension render-flame reads; characters
 * outside [A-Za-z0-9_.:-] in names become '_'). Returns 0, or -1 with err. */
int fk_pprof_folded_write(const struct fk_pprof *pp, size_t ti, FILE *out,
			  struct fk_err *err);

#endif
