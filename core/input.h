/* SPDX-License-Identifier: MIT */
/* Reading a profile, whatever its format: the one entry point every tool
 * and the hook use. */
#ifndef FK_INPUT_H
#define FK_INPUT_H

#include <stddef.h>

#include "err.h"
#include "profile.h"

/* Reads a raw (heap_v2 or legacy) or symbolized profile from data[0..len),
 * told apart by its first line, into the new profile p; data must outlive
 * p (fk_profile_own). Returns 0, or -1 with err. */
int fk_profile_parse(struct fk_profile *p, const char *data, size_t len,
		     struct fk_err *err);

/* Reads path ("-" or NULL = stdin; regular files are mapped, not copied;
 * io.h's fk_map_input) and parses it with fk_profile_parse into the new
 * profile p, which then owns the input. Returns 0, or -1 with err. */
int fk_profile_load(struct fk_profile *p, const char *path, struct fk_err *err);

#endif
