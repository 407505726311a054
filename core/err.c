/* SPDX-License-Identifier: MIT */
/* Error values with their context (see err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fk_err_init(struct fk_err *err, const char *path)
{
	memset(err, 0, sizeof *err);
	err->path = path;
	err->offset = UINT64_MAX;
}

__attribute__((format(printf, 5, 0)))
static int vset(struct fk_err *err, enum fk_errcode code, uint64_t line,
		uint64_t offset, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->code = code;
	err->line = line;
	err->offset = offset;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return -1;
}

int fk_err_set(struct fk_err *err, enum fk_errcode code, uint64_t line,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, code, line, UINT64_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

int fk_err_set_off(struct fk_err *err, enum fk_errcode code, uint64_t offset,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, code, 0, offset, fmt, ap);
	va_end(ap);
	return -1;
}

char *fk_err_str(const struct fk_err *err, char *buf, size_t size)
{
	const char *path = err->path ? err->path : "-";

	if (err->line)
		snprintf(buf, size, "%s: line %llu: %s", path,
			 (unsigned long long)err->line, err->msg);
	else if (err->offset != UINT64_MAX)
		snprintf(buf, size, "%s: offset %llu: %s", path,
			 (unsigned long long)err->offset, err->msg);
	else
		snprintf(buf, size, "%s: %s", path, err->msg);
	return buf;
}

char *fk_err_quote(char *dst, size_t size, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	if (size == 0)
		return dst;
	/* Leave room for "...", the closing quote and the NUL. */
	for (i = 0; i < n && o + 9 < size && i < 40; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[o++] = (char)c;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	if (i < n && o + 4 < size) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
	return dst;
}
