/* SPDX-License-Identifier: MIT */
/* Lock contention profiles of C++ (gperftools' "--- contentionz 1 ---")
 * and Go ("--- mutex:", "--- contention:"): "NAME = VALUE" attributes,
 * then "DELAY COUNT @ PC..." lines, then the memory map (google/pprof
 * profile/legacy_profile.go, parseContention). Values: contentions/count
 * (COUNT times the sampling period) and delay/nanoseconds (DELAY cycles
 * times the period, at cycles/second). */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "num.h"

/* "NAME = VALUE": the name and value, trimmed; 0 when no '='. */
static int attribute(const char *s, size_t n, const char **k, size_t *kn,
		     const char **v, size_t *vn)
{
	const char *eq = memchr(s, '=', n), *e;

	if (!eq)
		return 0;
	for (e = eq; e > s && (e[-1] == ' ' || e[-1] == '\t'); e--)
		;
	*k = s;
	*kn = (size_t)(e - s);
	for (*v = eq + 1; *v < s + n && (**v == ' ' || **v == '\t'); (*v)++)
		;
	*vn = (size_t)(s + n - *v);
	return 1;
}

/* "N N @ 0x..": the two numbers and where the addresses start. */
static int numbers(struct fk_lines *l, const char *s, size_t n, int64_t *a, int64_t *b,
		   const char **at)
{
	const char *end = s + n, *t = s, *u;
	int64_t *out[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		while (t < end && (*t == ' ' || *t == '\t'))
			t++;
		for (u = t; u < end && *u >= '0' && *u <= '9'; u++)
			;
		if (u == t || fk_parse_i64(t, (size_t)(u - t), out[i]) < 0)
			return fk_lines_bad(l, "bad sample", s, n);
		t = u;
	}
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	if (t == end || *t != '@' || (t + 1 < end && t[1] != ' ' && t[1] != '\t'))
		return fk_lines_bad(l, "bad sample", s, n);
	*at = t + 1;
	return 0;
}

int fk_legacy_contention(const char *data, size_t len, uint8_t **out,
			 size_t *outlen, struct fk_err *err)
{
	struct fk_lb *b;
	uint64_t *addrs;
	struct fk_lines l;
	const char *s, *k, *v, *at = NULL;
	size_t n, kn, vn, na, i;
	int64_t period = 1, hz = 0, ms = 0, val[2], delay, count;
	int rc = -1, r;

	if (fk_lines_begin(&l, data, len, &b, &addrs, err) < 0)
		goto out;
	if (fk_lines_next(&l, &s, &n) <= 0)
		goto out;
	/* The attributes. */
	while ((r = fk_lines_next(&l, &s, &n)) > 0) {
		if (n == 0 || s[0] == '#')
			continue;
		if (fk_lines_starts(s, n, "---") || !attribute(s, n, &k, &kn, &v, &vn))
			break;
		if (kn == 13 && memcmp(k, "cycles/second", 13) == 0) {
			if (fk_lines_attr(&l, s, n, v, vn, INT64_MAX, &hz) < 0)
				goto out;
		} else if (kn == 15 && memcmp(k, "sampling period", 15) == 0) {
			if (fk_lines_attr(&l, s, n, v, vn, INT64_MAX, &period) < 0)
				goto out;
		} else if (kn == 14 && memcmp(k, "ms since reset", 14) == 0) {
			if (fk_lines_attr(&l, s, n, v, vn, INT64_MAX / 1000000, &ms) < 0)
				goto out;
		} else if (!(kn == 17 && memcmp(k, "discarded samples", 17) == 0)) {
			fk_lines_bad(&l, "unknown attribute", s, n);
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (fk_lb_type(b, "contentions", "count", err) < 0 ||
	    fk_lb_type(b, "delay", "nanoseconds", err) < 0 ||
	    fk_lb_period(b, "contentions", "count", period, ms * 1000000, err) < 0)
		goto out;
	/* The samples, from the line that ended the attributes. */
	for (; r > 0; r = fk_lines_next(&l, &s, &n)) {
		if (n == 0 || s[0] == '#')
			continue;
		if (fk_lines_starts(s, n, "---"))
			break;
		if (numbers(&l, s, n, &delay, &count, &at) < 0 ||
		    fk_lines_hexes(&l, at, (size_t)(s + n - at), addrs, &na) < 0)
			goto out;
		if (period > 0) {
			if (hz > 0)
				delay = (int64_t)((double)delay * (double)period / ((double)hz / 1e9));
			if (count > INT64_MAX / period) {
				fk_lines_bad(&l, "count overflows", s, n);
				goto out;
			}
			count *= period;
		}
		val[0] = count;
		val[1] = delay;
		for (i = 0; i < na; i++)
			addrs[i]--;
		if (fk_lb_sample(b, val, addrs, na, -1, l.lineno, err) < 0)
			goto out;
	}
	rc = fk_lines_finish(&l, r, s, n, b, out, outlen, err);
out:
	fk_lines_end(b, addrs);
	return rc;
}
