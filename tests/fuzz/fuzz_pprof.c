/* SPDX-License-Identifier: MIT */
/* libFuzzer target: from-pprof's decoder and validator (gzip, protobuf-c,
 * pprof's checks) and, on success, the folded writer, which must not fail.
 * Input that reads as a heap profile instead goes through to-pprof, whose
 * output the decoder must accept. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded_enc.h"
#include "pprof_dec.h"
#include "pprof_enc.h"
#include "symprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void from_pprof(const uint8_t *data, size_t size, FILE *devnull)
{
	struct fk_pprof *pp;
	struct fk_err err;
	int ti;

	fk_err_init(&err, "fuzz");
	if (fk_pprof_read(data, size, &pp, &err) < 0)
		return;
	ti = fk_pprof_pick_type(pp, NULL, &err);
	if (ti >= 0 && fk_pprof_folded_write(pp, (size_t)ti, devnull, &err) < 0 &&
	    err.code != FK_ELIMIT)
		abort();
	fk_pprof_free(pp);
}

static void to_pprof(const uint8_t *data, size_t size, FILE *devnull)
{
	struct fk_profile *p = fk_profile_new("fuzz");
	char *copy = malloc(size + 1);
	struct fk_err err;
	unsigned char *pb;
	size_t n;
	struct fk_pprof *pp;

	if (!p || !copy) {
		free(copy);
		fk_profile_free(p);
		return;
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	fk_profile_own(p, copy);
	fk_err_init(&err, "fuzz");
	if (fk_profile_parse(p, copy, size, &err) == 0) {
		if (fk_pprof_encode(p, NULL, &pb, &n, &err) < 0)
			abort();
		if (fk_pprof_read(pb, n, &pp, &err) < 0)
			abort();              /* we wrote something pprof rejects */
		fk_pprof_free(pp);
		free(pb);
		if (fk_folded_write(p, NULL, devnull, &err) < 0)
			abort();
	}
	fk_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		return 0;
	from_pprof(data, size, devnull);
	to_pprof(data, size, devnull);
	return 0;
}
