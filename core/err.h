/* SPDX-License-Identifier: MIT */
/* Errors returned by library code: a code plus where (file, line, offset)
 * and a message. Library code never prints; tools format and print these. */
#ifndef FK_ERR_H
#define FK_ERR_H

#include <stddef.h>
#include <stdint.h>

enum fk_errcode {
	FK_OK = 0,
	FK_ESYNTAX,     /* malformed input */
	FK_ELIMIT,      /* input exceeds a bound of limits.h */
	FK_ENOMEM,      /* allocation failed */
	FK_EIO,         /* read or write failed; errno text in msg */
	FK_EUNSUPP,     /* well-formed but not supported */
};

struct fk_err {
	enum fk_errcode code;
	const char *path;     /* borrowed name of the input, may be NULL */
	uint64_t line;        /* 1-based line number, 0 if none */
	uint64_t offset;      /* byte offset, used when line is 0; UINT64_MAX if none */
	char msg[256];        /* lowercase, no full stop, bad value quoted */
};

/* Resets err to "no error" naming input path (borrowed; must outlive err). */
void fk_err_init(struct fk_err *err, const char *path);

/* Records an error at line (0 = none) with a printf-style message; returns -1
 * so callers can write `return fk_err_set(...)`. err may be NULL. */
int fk_err_set(struct fk_err *err, enum fk_errcode code, uint64_t line,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Same, at a byte offset instead of a line. */
int fk_err_set_off(struct fk_err *err, enum fk_errcode code, uint64_t offset,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Formats "PATH: line N: MSG" (or "PATH: offset N: MSG", or "PATH: MSG")
 * into buf; returns buf. */
char *fk_err_str(const struct fk_err *err, char *buf, size_t size);

/* Appends to dst (size bytes) a quoted, printable excerpt of the bytes
 * s[0..n): at most 40 characters, control and non-ASCII bytes as \xNN.
 * Used to quote the bad value in messages. Returns dst. */
char *fk_err_quote(char *dst, size_t size, const char *s, size_t n);

#endif
