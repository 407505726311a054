/* SPDX-License-Identifier: MIT */
/* The one strict number parser (see num.h). */
#include "num.h"

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
