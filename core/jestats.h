/* SPDX-License-Identifier: MIT */
/* jemalloc's own statistics that say where its memory goes (jemalloc(3),
 * MALLCTL NAMESPACE: arenas.bin.<j>.*, arenas.lextent.<j>.size,
 * stats.arenas.<i>.*), as the hook reads them through mallctl or as
 * malloc_stats_print writes them with opts "J" (src/stats.c), read here. */
#ifndef FK_JESTATS_H
#define FK_JESTATS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* One small size class: its shape and, over the arenas counted, its
 * slabs. */
struct fk_jestats_bin {
	uint64_t size, nregs, slab_size;
	uint64_t curregs, curslabs, nonfull_slabs;
};

/* One large size class and its extents in use. */
struct fk_jestats_lext {
	uint64_t size, curlextents;
};

/* A figure jemalloc did not give (an option it lacks, statistics left
 * out by the writer's options). */
#define FK_JESTATS_NONE INT64_MIN

struct fk_jestats {
	char version[80];              /* "5.3.0-0-g54eaed1d...", or "" */
	int stats;                     /* config.stats: 0 when built without them */
	int have_bins;                 /* the per-class figures are there */
	/* Settings (FK_JESTATS_NONE when unknown; booleans 0 or 1). */
	int64_t dirty_decay_ms, muzzy_decay_ms;
	int64_t retain, background_thread, cache_oblivious, tcache_max;
	int64_t bg_threads;            /* background threads running */
	uint64_t page;
	/* Totals over the arenas counted (the program's: the hook's own arena
	 * left out), bytes unless named pages. */
	uint64_t allocated, active, resident, mapped, retained, metadata;
	uint64_t pactive, pdirty, pmuzzy;
	uint64_t small_allocated, large_allocated, tcache_bytes;
	/* The radix tree's bytes (stats.metadata_rtree, from jemalloc 5.3.1;
	 * FK_JESTATS_NONE before): part of metadata, counted resident whole. */
	int64_t metadata_rtree;
	struct fk_jestats_bin *bins;   /* nbins of them, by index */
	size_t nbins;
	struct fk_jestats_lext *lext;  /* nlext of them */
	size_t nlext;
};

/* The class of a size (a usable size, or a heap dump stack's mean, which
 * jemalloc's unbiased counts make stray from it): the index of the small
 * class nearest to it by ratio, or FK_JESTATS_LARGE where the smallest
 * large class (four pages) is nearer. */
#define FK_JESTATS_LARGE (-1)
int fk_jestats_class(const struct fk_jestats *st, double size);

/* Zeroes st: no figure, every setting FK_JESTATS_NONE. */
void fk_jestats_init(struct fk_jestats *st);

/* Frees what st holds (not st). */
void fk_jestats_release(struct fk_jestats *st);

/* Sizes st's class tables to nbins and nlext classes (zeroed). 0, or -1
 * with err (a count above FK_JESTATS_MAX_CLASSES, out of memory). */
int fk_jestats_classes(struct fk_jestats *st, size_t nbins, size_t nlext, struct fk_err *err);

/* Parses malloc_stats_print's JSON (opts "J", any other letters too:
 * figures it left out stay unknown) in data[0..len) into st (from
 * fk_jestats_init). The arenas are summed as "merged" has them, or arena
 * by arena where it is absent (one arena). Strict JSON; a figure of the
 * wrong type, class tables that disagree or a class beyond
 * FK_JESTATS_MAX_CLASSES fail with err naming the byte offset. 0 or -1. */
int fk_jestats_parse(struct fk_jestats *st, const char *data, size_t len, struct fk_err *err);

/* Reads path ("-": standard input) with fk_jestats_parse. 0 or -1. */
int fk_jestats_load(struct fk_jestats *st, const char *path, struct fk_err *err);

#endif
