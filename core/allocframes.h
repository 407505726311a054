/* SPDX-License-Identifier: MIT */
/* Allocator frames: which frames of a stack belong to the allocator rather
 * than to the program (core/allocframes.c holds the one table). */
#ifndef FK_ALLOCFRAMES_H
#define FK_ALLOCFRAMES_H

#include <stddef.h>

/* True when a frame is an allocator frame: its module is libjemalloc, or its
 * (outermost, display) function name is an allocation entry point, a
 * prefixed jemalloc's or tcmalloc's name, C++'s operator new, or a step of
 * Rust's allocation path. module_base and name may be NULL. */
int fk_alloc_is_frame(const char *module_base, const char *name,
		      const char *sysname);

/* Writes into buf (size bytes, NUL-terminated) a regex, in the RE2 syntax
 * pprof's drop_frames takes (matching a whole function name), for the same
 * display names fk_alloc_is_frame accepts. 0, or -1 when size is too small
 * (1024 bytes is enough). */
int fk_alloc_regex(char *buf, size_t size);

#endif
