/* SPDX-License-Identifier: MIT */
/* A strict JSON reader's pieces (RFC 8259), for the JSON jemalloc writes:
 * prof_recent's record (life.c) and malloc_stats_print's "J" statistics
 * (jestats.c). Values are read in place, never copied or decoded; errors
 * name the byte offset into the input. */
#ifndef FK_JSONLEX_H
#define FK_JSONLEX_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct fk_json {
	const char *s, *end;           /* the next byte, the end of the input */
	const char *base;              /* the input's first byte, for offsets */
	struct fk_err *err;
};

/* Reads data[0..len) from its start; errors go to err. */
void fk_json_init(struct fk_json *j, const char *data, size_t len, struct fk_err *err);

/* Skips blanks. */
void fk_json_ws(struct fk_json *j);

/* A syntax error "what" at byte at; returns -1. */
int fk_json_bad(struct fk_json *j, const char *at, const char *what);

/* The bad value v[0..n) quoted: "bad WHAT 'V': want WANT" at v; -1. */
int fk_json_bad_span(struct fk_json *j, const char *v, size_t n, const char *what,
		     const char *want);

/* The character c after blanks, else the error what. 0 or -1. */
int fk_json_expect(struct fk_json *j, char c, const char *what);

/* After a member or element: 1 past a ',', 0 past close, else -1 with
 * what. */
int fk_json_next(struct fk_json *j, char close, const char *what);

/* A string: its raw bytes between the quotes (escapes checked, not
 * decoded) into *v, *n. 0 or -1. */
int fk_json_string(struct fk_json *j, const char **v, size_t *n);

/* An unsigned integer (name for the message). 0 or -1. */
int fk_json_u64(struct fk_json *j, const char *name, uint64_t *v);

/* true or false into *v (1 or 0). 0 or -1. */
int fk_json_bool(struct fk_json *j, const char *name, int *v);

/* The bytes of a number or a literal (true, false, null) at the next
 * byte into *v, *n, checked as JSON's grammar has them. 0 or -1. */
int fk_json_scalar(struct fk_json *j, const char **v, size_t *n);

/* Skips any value, nesting at most max - depth deep. 0 or -1. */
int fk_json_skip(struct fk_json *j, int depth, int max);

/* 1 when the key k[0..n) is want. */
int fk_json_key_is(const char *k, size_t n, const char *want);

#endif
