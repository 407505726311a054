/* SPDX-License-Identifier: MIT */
/* Thread profiles ("--- threadz N ---", then per thread "--- Thread HEX
 * (name: NAME/TID) stack: ---" and lines of PCs, symbolized or not, or
 * "[same as previous thread]"), then the memory map (google/pprof
 * profile/legacy_profile.go, parseThread). One thread/count a thread; a
 * thread like the one before adds to its count. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"

/* "--- Thread HEX (name: NAME/TID) stack: ---" */
static int thread_line(const char *s, size_t n)
{
	return fk_lines_starts(s, n, "--- Thread ") && fk_lines_contains(s, n, " (name: ") &&
	       fk_lines_contains(s, n, ") stack: ---");
}

int fk_legacy_thread(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err)
{
	struct fk_lb *b;
	uint64_t *addrs, *more = NULL;
	struct fk_lines l;
	const char *s;
	size_t n, na, got, i;
	int64_t one = 1;
	int rc = -1, r;

	if (fk_lines_begin(&l, data, len, &b, &addrs, err) < 0)
		goto out;
	more = malloc(FK_MAX_DEPTH_ANY * sizeof *more);
	if (!more) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto out;
	}
	if (fk_lb_type(b, "thread", "count", err) < 0 ||
	    fk_lb_period(b, "thread", "count", 1, 0, err) < 0)
		goto out;
	while ((r = fk_lines_next(&l, &s, &n)) > 0 && (n == 0 || s[0] == '#'))
		;
	if (r > 0 && fk_lines_starts(s, n, "--- threadz ")) {
		/* Comments up to the first thread. */
		while ((r = fk_lines_next(&l, &s, &n)) > 0)
			if (fk_lines_is_maps(s, n) || fk_lines_starts(s, n, "-"))
				break;
	}
	while (r > 0 && !fk_lines_is_maps(s, n)) {
		int same = 0;

		if (fk_lines_starts(s, n, "---- no stack trace for"))
			break;
		if (!thread_line(s, n)) {
			fk_lines_bad(&l, "expected a '--- Thread' line, not", s, n);
			goto out;
		}
		na = 0;
		while ((r = fk_lines_next(&l, &s, &n)) > 0) {
			if (n == 0)
				continue;
			if (fk_lines_starts(s, n, "---"))
				break;
			if (fk_lines_contains(s, n, "same as previous thread")) {
				same = 1;
				continue;
			}
			if (fk_lines_hexes(&l, s, n, more, &got) < 0)
				goto out;
			if (got > FK_MAX_DEPTH_ANY - na) {
				fk_err_set(err, FK_ELIMIT, l.lineno, "stack deeper than %d frames",
					   FK_MAX_DEPTH_ANY);
				goto out;
			}
			memcpy(addrs + na, more, got * sizeof *more);
			na += got;
		}
		if (r < 0)
			goto out;
		if (same || na == 0) {
			/* Like the thread before: one more of it. */
			if (fk_lb_nsamples(b))
				fk_lb_values(b, fk_lb_nsamples(b) - 1)[0]++;
			continue;
		}
		/* Callers point after their call; the PC does not. */
		for (i = 1; i < na; i++)
			addrs[i]--;
		if (na > 1 && addrs[0] == addrs[1] + 1) {
			memmove(addrs + 1, addrs + 2, (na - 2) * sizeof *addrs);
			na--;
		}
		if (fk_lb_sample(b, &one, addrs, na, -1, l.lineno, err) < 0)
			goto out;
	}
	rc = fk_lines_finish(&l, r, s, n, b, out, outlen, err);
out:
	free(more);
	fk_lines_end(b, addrs);
	return rc;
}
