/* SPDX-License-Identifier: MIT */
/* The symbolized profile: jeprof's own convention ("--- symbol",
 * "binary=PATH", "0xPC outer--inlined--inner" lines, "---", "--- heap", then
 * the raw dump), so that `jeprof --text FILE` reads it with no binary at
 * hand, plus flamekit's lines that jeprof's reader skips (they match none of
 * ^0x, ^---, ^[a-z][^=]*=):
 *
 *   =flamekit VERSION allocator-frames=dropped|kept
 *   =build-id HEX<TAB>PATH
 *   =sym 0xKEY<TAB>KIND<TAB>NAME<TAB>SYSNAME<TAB>FILE<TAB>LINE[<TAB>NAME...]
 *
 * KIND is "f" (function names) or "m" (a module+offset placeholder); frames
 * are outer first, as in jeprof's "--" list; an empty SYSNAME means the same
 * as NAME, an empty FILE none, LINE 0 unknown.
 *
 * A "=sym" line, when present, is the authority for its key; a bare
 * "0xPC names" line (from jeprof itself) gives names only. */
#ifndef FK_SYMPROF_H
#define FK_SYMPROF_H

#include <stddef.h>
#include <stdio.h>

#include "input.h"
#include "profile.h"

/* Reads the symbolized profile data[0..len) (it starts with "--- symbol")
 * into the new profile p; data must outlive p. Returns 0, or -1 with err.
 * Tools read every format through fk_profile_parse (input.h). */
int fk_symprof_parse(struct fk_profile *p, const char *data, size_t len,
		     struct fk_err *err);

/* Writes p with its symbols in the symbolized format. 0, or -1 with err. */
int fk_symprof_write(const struct fk_profile *p, FILE *out, struct fk_err *err);

#endif
