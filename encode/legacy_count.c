/* SPDX-License-Identifier: MIT */
/* Go's count profiles as runtime/pprof writes them with debug=1
 * ("threadcreate profile: total 7", "goroutine profile: total 12"), then
 * "N @ 0xPC..." lines (google/pprof profile/legacy_profile.go,
 * parseGoCount). One sample type, NAME/count. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "num.h"

/* "NAME profile: total N": the length of NAME, or 0. */
size_t fk_legacy_count_header(const char *s, size_t n)
{
	const char *sp = memchr(s, ' ', n), *t;
	uint64_t total;

	if (!sp || sp == s || (size_t)(s + n - sp) < 17 || memcmp(sp, " profile: total ", 16) != 0)
		return 0;
	for (t = s; t < sp; t++)
		if (*t == '\t')
			return 0;
	t = sp + 16;
	if (fk_parse_u64(t, (size_t)(s + n - t), &total) < 0)
		return 0;
	return (size_t)(sp - s);
}

int fk_legacy_count(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err)
{
	struct fk_lb *b;
	uint64_t *addrs;
	struct fk_lines l;
	const char *s, *at;
	char name[64];
	size_t n, k, na, i;
	int64_t v;
	int rc = -1, r;

	if (fk_lines_begin(&l, data, len, &b, &addrs, err) < 0)
		goto out;
	while ((r = fk_lines_next(&l, &s, &n)) > 0 && (n == 0 || s[0] == '#'))
		;
	if (r <= 0 || (k = fk_legacy_count_header(s, n)) == 0 || k >= sizeof name) {
		if (r >= 0)
			fk_lines_bad(&l, "bad count profile header", r > 0 ? s : "", r > 0 ? n : 0);
		goto out;
	}
	memcpy(name, s, k);
	name[k] = 0;
	if (fk_lb_type(b, name, "count", err) < 0 ||
	    fk_lb_period(b, name, "count", 1, 0, err) < 0)
		goto out;
	while ((r = fk_lines_next(&l, &s, &n)) > 0) {
		if (n == 0 || s[0] == '#')
			continue;
		if (n >= 3 && memcmp(s, "---", 3) == 0)
			break;
		at = memchr(s, '@', n);
		/* "N @ 0x.. 0x..": pprof wants exactly that. */
		if (!at || at == s || at[-1] != ' ' || at + 1 == s + n || at[1] != ' ' ||
		    fk_parse_i64(s, (size_t)(at - 1 - s), &v) < 0 || v < 0) {
			fk_lines_bad(&l, "bad sample", s, n);
			goto out;
		}
		if (fk_lines_hexes(&l, at + 1, (size_t)(s + n - at - 1), addrs, &na) < 0)
			goto out;
		if (na == 0) {
			fk_lines_bad(&l, "sample without addresses", s, n);
			goto out;
		}
		for (i = 0; i < na; i++)
			addrs[i]--;
		if (fk_lb_sample(b, &v, addrs, na, -1, l.lineno, err) < 0)
			goto out;
	}
	rc = fk_lines_finish(&l, r, s, n, b, out, outlen, err);
out:
	fk_lines_end(b, addrs);
	return rc;
}
