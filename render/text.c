/* SPDX-License-Identifier: MIT */
/* Text for the SVG writer: a growable buffer, UTF-8 cleaning to what XML 1.0
 * accepts (RFC 3629 decoding; XML 1.0 section 2.2 "Characters"), and fast
 * number formatting. */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "render_int.h"
#include "utf8.h"

int fk_buf_grow(struct fk_buf *b, size_t more)
{
	if (b->cap - b->len >= more)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -1;
	return fk_reserve((void **)&b->p, &b->cap, b->len + more, 1, 256);
}

int fk_buf_add(struct fk_buf *b, const void *s, size_t n)
{
	if (fk_buf_grow(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

int fk_buf_adds(struct fk_buf *b, const char *s)
{
	return fk_buf_add(b, s, strlen(s));
}

void fk_buf_release(struct fk_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int bad_char(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xfffe || c == 0xffff;
}

size_t fk_clean_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		size_t l;

		if (u[i] >= 0x20 && u[i] < 0x7f) {
			i++;
			continue;
		}
		l = fk_utf8_dec(u + i, n - i, &cp);
		if (!l || bad_char(cp))
			break;
		i += l;
	}
	return i;
}

int fk_buf_add_clean(struct fk_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	/* Worst case: every byte becomes the 3-byte U+FFFD. */
	if (n > SIZE_MAX / 3 || fk_buf_grow(b, n * 3) < 0)
		return -1;
	while (i < n) {
		uint32_t cp;
		size_t l;

		if (u[i] >= 0x20 && u[i] < 0x7f) {
			i++;
			run++;
			continue;
		}
		l = fk_utf8_dec(u + i, n - i, &cp);
		if (l && !bad_char(cp)) {
			i += l;
			run += l;
			continue;
		}
		memcpy(b->p + b->len, s + i - run, run);
		b->len += run;
		run = 0;
		memcpy(b->p + b->len, "\xef\xbf\xbd", 3);
		b->len += 3;
		i += l ? l : 1;
	}
	memcpy(b->p + b->len, s + i - run, run);
	b->len += run;
	return 0;
}

int fk_buf_add_i64(struct fk_buf *b, int64_t v)
{
	char tmp[24];
	int i = 24;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	return fk_buf_add(b, tmp + i, (size_t)(24 - i));
}

int fk_buf_add_fix1(struct fk_buf *b, int64_t tenths)
{
	int64_t a = tenths < 0 ? -tenths : tenths;

	if (tenths < 0 && fk_buf_add(b, "-", 1) < 0)
		return -1;
	if (fk_buf_add_i64(b, a / 10) < 0)
		return -1;
	if (a % 10) {
		char d[2] = { '.', (char)('0' + a % 10) };
		return fk_buf_add(b, d, 2);
	}
	return 0;
}

size_t fk_utf8_prefix(const char *s, size_t n, size_t maxchars, size_t *nchars)
{
	size_t i = 0, chars = 0, cut = n;

	for (; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (chars == maxchars && cut == n)
			cut = i;
		chars++;
	}
	*nchars = chars;
	return cut;
}
