/* SPDX-License-Identifier: MIT */
/* UTF-8 decoding and repair: what every writer of text meant for another
 * program (pprof's string table, the SVG page) needs, since names in
 * symbol tables and paths in maps are bytes, not text. */
#ifndef FK_UTF8_H
#define FK_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one UTF-8 character at s[0..n) (n >= 1); returns its length and
 * the code point in *cp, or 0 for an invalid sequence (overlong,
 * surrogate, beyond U+10FFFF, truncated). */
size_t fk_utf8_dec(const unsigned char *s, size_t n, uint32_t *cp);

/* The length of the longest prefix of s[0..n) that is valid UTF-8. */
size_t fk_utf8_valid(const char *s, size_t n);

/* Writes s[0..n) into dst (room for 3 * n bytes) with every byte that
 * starts no valid sequence replaced by U+FFFD; returns the length written. */
size_t fk_utf8_repair(char *dst, const char *s, size_t n);

#endif
