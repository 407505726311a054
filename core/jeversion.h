/* SPDX-License-Identifier: MIT */
/* What a jemalloc version text ("5.3.0-0-g54eaed1d...", its "version"
 * mallctl and malloc_stats_print's "version", as configure's
 * --with-version writes it) says about how that jemalloc counts. */
#ifndef FK_JEVERSION_H
#define FK_JEVERSION_H

/* Whether jemalloc version v rounds a sampled small object's extent to a
 * page, leaving the object out of stats.allocated: 1 from 5.3.0-116 on
 * (commit 07a2eab3; 5.3.1), else 0 (also for text it cannot read). Up to
 * then the extent is the smallest large class, which stats.allocated
 * counts (src/arena.c arena_prof_promote). */
int fk_jeversion_page_rounded(const char *v);

#endif
