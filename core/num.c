/* SPDX-License-Identifier: MIT */
/* The one strict number parser (see num.h). */
#include "num.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fk_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int fk_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v;
	int neg = n > 0 && s[0] == '-';

	if (fk_parse_u64(s + neg, n - neg, &v) < 0)
		return -1;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -1;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -1;
		*out = (int64_t)v;
	}
	return 0;
}

int fk_parse_hex(const char *s, size_t n, int needprefix, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	else if (needprefix)
		return -1;
	if (i == n)
		return -1;
	for (; i < n; i++) {
		unsigned c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (v >> 60)
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Digits from s[*i] on; returns how many. */
static size_t digits(const char *s, size_t n, size_t *i)
{
	size_t k = 0;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++, k++;
	return k;
}

int fk_parse_double(const char *s, size_t n, double *out)
{
	char buf[FK_NUM_MAX_DOUBLE + 1];
	size_t i = 0, m;
	locale_t c;
	double v;

	if (n == 0 || n > FK_NUM_MAX_DOUBLE)
		return -1;
	m = digits(s, n, &i);
	if (i < n && s[i] == '.') {
		i++;
		m += digits(s, n, &i);
	}
	if (m == 0)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (digits(s, n, &i) == 0)
			return -1;
	}
	if (i != n)
		return -1;
	/* The grammar is checked; strtod_l only converts, rounding as the C
	 * library does. glibc's "C" locale object is static: no allocation. */
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!(c = newlocale(LC_ALL_MASK, "C", (locale_t)0)))
		return -1;
	v = strtod_l(buf, NULL, c);
	freelocale(c);
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int fk_parse_size(const char *s, size_t n, uint64_t max, size_t *out)
{
	uint64_t v;

	if (fk_parse_u64(s, n, &v) < 0 || v > max || v > SIZE_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

int fk_parse_bytes(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	static const struct { const char *unit; int shift; } units[] = {
		{ "", 0 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 },
	};
	size_t d = 0, i;
	uint64_t v;

	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d == 0 || fk_parse_u64(s, d, &v) < 0)
		return -1;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t ul = strlen(units[i].unit);

		if (n - d != ul || memcmp(s + d, units[i].unit, ul) != 0)
			continue;
		if (v > max >> units[i].shift)
			return -1;
		*out = v << units[i].shift;
		return 0;
	}
	return -1;
}

int fk_parse_minwidth(const char *s, size_t n, double *out, int *pct)
{
	int p = n > 0 && s[n - 1] == '%';

	if (fk_parse_double(s, n - p, out) < 0)
		return -1;
	*pct = p;
	return 0;
}
