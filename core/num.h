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

#endif
