/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the readers of google/pprof's legacy formats
 * (encode/legacy*.c). What a reader accepts it packs as profile.proto, and
 * that message must pass fk_pprof_read's checks (but its bounds) and give
 * folded stacks: a failure there is our bug, not the input's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pprof_dec.h"
#include "encode_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct fk_pprof *pp;
	struct fk_err err;
	uint8_t *pb = NULL;
	size_t n = 0;
	int ti;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		return 0;
	fk_err_init(&err, "fuzz");
	if (fk_legacy_read(data, size, &pb, &n, &err) != 1)
		return 0;
	if (fk_pprof_read(pb, n, &pp, &err) < 0) {
		/* Only a bound (a total past 2^62) may refuse what a legacy
		 * reader packed; anything else is a message we built wrong. */
		if (err.code != FK_ELIMIT)
			abort();
		free(pb);
		return 0;
	}
	free(pb);
	ti = fk_pprof_pick_type(pp, NULL, &err);
	if (ti < 0)
		abort();
	if (fk_pprof_folded_write(pp, (size_t)ti, devnull, &err) < 0 && err.code != FK_ELIMIT)
		abort();
	fk_pprof_free(pp);
	return 0;
}
