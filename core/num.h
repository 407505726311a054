/* SPDX-License-Identifier: MIT */
/* The one strict number parser: no sign surprises, no overflow, no locale,
 * no leading spaces, no trailing junk inside the token. */
#ifndef FK_NUM_H
#define FK_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Parses decimal digits s[0..n) into *out. Returns 0, or -1 when the token is
 * empty, holds a non-digit, or exceeds UINT64_MAX. */
int fk_parse_u64(const char *s, size_t n, uint64_t *out);

/* Same with an optional leading '-', in the range of int64_t. */
int fk_parse_i64(const char *s, size_t n, int64_t *out);

/* Parses hexadecimal s[0..n) with an optional "0x"/"0X" prefix (required
 * when needprefix) into *out; -1 on an empty token, non-hex, or more than
 * 64 bits of value. */
int fk_parse_hex(const char *s, size_t n, int needprefix, uint64_t *out);

/* Parses a decimal number s[0..n) into *out: digits with an optional
 * fraction and exponent ("12", "0.5", ".5", "1e3"), no sign (every figure
 * the tools and the hook take is >= 0), no spaces, read in the C locale
 * whatever the program's. -1 on anything else, a token of more than
 * FK_NUM_MAX_DOUBLE bytes, or a value too large for a double. */
int fk_parse_double(const char *s, size_t n, double *out);
#define FK_NUM_MAX_DOUBLE 64

/* Parses a size s[0..n), decimal digits of at most max, into *out; -1 on
 * a bad token or one above max. */
int fk_parse_size(const char *s, size_t n, uint64_t max, size_t *out);

/* Parses a number of bytes s[0..n): decimal digits, alone or directly
 * followed by KiB, MiB or GiB (powers of 1024), of at most max bytes,
 * into *out; -1 on anything else (heap-check's sizes and budget lines). */
int fk_parse_bytes(const char *s, size_t n, uint64_t max, uint64_t *out);

/* Parses a minimum width "PX" or "N%" (fk_parse_double's numbers; the
 * percent sign sets *pct to 1, else 0). Ranges are the caller's. 0 or -1. */
int fk_parse_minwidth(const char *s, size_t n, double *out, int *pct);

#endif
