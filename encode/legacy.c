/* SPDX-License-Identifier: MIT */
/* Which of the legacy formats google/pprof reads a profile is in (its
 * first line, or the binary CPU header), and its reader. The order is
 * pprof's (profile/profile.go parseLegacy), where the forms overlap. */
#include "encode_int.h"

#include <string.h>

int fk_legacy_read(const void *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err)
{
	const char *t = data;
	struct fk_lines l;
	const char *s;
	size_t n;
	int rc;

	if (fk_legacy_is_cpu(data, len))
		return fk_legacy_cpu(data, len, out, outlen, err) < 0 ? -1 : 1;
	fk_lines_init(&l, t, len, NULL);
	if (fk_lines_next(&l, &s, &n) <= 0)
		return 0;
	if (fk_lines_starts(s, n, "heap profile:"))
		rc = fk_legacy_heap(t, len, out, outlen, err);
	else if (fk_legacy_is_java(t, len))
		rc = fk_legacy_java(t, len, out, outlen, err);
	else if (fk_lines_starts(s, n, "--- contentionz ") || fk_lines_starts(s, n, "--- mutex:") ||
		 fk_lines_starts(s, n, "--- contention:"))
		rc = fk_legacy_contention(t, len, out, outlen, err);
	else {
		/* Thread and count profiles may start with blank and '#' lines. */
		while (n == 0 || s[0] == '#')
			if (fk_lines_next(&l, &s, &n) <= 0)
				return 0;
		if (fk_lines_starts(s, n, "--- threadz ") || fk_lines_starts(s, n, "--- Thread "))
			rc = fk_legacy_thread(t, len, out, outlen, err);
		else if (fk_legacy_count_header(s, n))
			rc = fk_legacy_count(t, len, out, outlen, err);
		else
			return 0;
	}
	return rc < 0 ? -1 : 1;
}
