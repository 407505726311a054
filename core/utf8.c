/* SPDX-License-Identifier: MIT */
/* UTF-8 (RFC 3629) decoding and repair (see utf8.h). */
#include "utf8.h"

#include <string.h>

size_t fk_utf8_dec(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0];
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t fk_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		size_t l;

		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (!(l = fk_utf8_dec(u + i, n - i, &cp)))
			break;
		i += l;
	}
	return i;
}

size_t fk_utf8_repair(char *dst, const char *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t ok = fk_utf8_valid(s + i, n - i);

		memcpy(dst + k, s + i, ok);
		k += ok;
		i += ok;
		if (i < n) {
			memcpy(dst + k, "\xef\xbf\xbd", 3);
			k += 3;
			i++;
		}
	}
	return k;
}
