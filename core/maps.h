/* SPDX-License-Identifier: MIT */
/* The /proc/PID/maps format (proc(5)), as embedded in jemalloc dumps under
 * MAPPED_LIBRARIES:. */
#ifndef FK_MAPS_H
#define FK_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Parses one maps line s[0..n) (without newline) into *m, interning the path
 * in p. Returns 0, or -1 with err (line number lineno). */
int fk_maps_parse_line(struct fk_profile *p, const char *s, size_t n,
		       uint64_t lineno, struct fk_mapping *m, struct fk_err *err);

/* Parses a whole maps text into p->maps (appending) and indexes them.
 * Line numbers in errors start at first_line. Returns 0 or -1. */
int fk_maps_parse(struct fk_profile *p, const char *s, size_t n,
		  uint64_t first_line, struct fk_err *err);

/* Parses the "--- Memory map: ---" section of a Google legacy profile
 * (maps_brief.c): /proc/PID/maps lines, brief "START-END: PATH [(@OFF)]
 * [BUILDID]" lines and "NAME=VALUE" lines whose $NAME later lines use,
 * blank lines skipped, into p->maps (appending), indexed; p->maps_text
 * becomes their /proc/PID/maps form (in p's arena). Line numbers in errors
 * start at first_line. Returns 0 or -1. */
int fk_maps_parse_pprof(struct fk_profile *p, const char *s, size_t n,
			uint64_t first_line, struct fk_err *err);

/* Returns the short name of a module path: its last component, or the
 * whole of a special name ("[vdso]"), or "[anon]" for "". */
const char *fk_maps_basename(const char *path);

#endif
