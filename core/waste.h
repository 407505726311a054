/* SPDX-License-Identifier: MIT */
/* Where the memory jemalloc holds goes (man/heap-waste.1, "How it is
 * estimated"): each small size class's slab waste from jemalloc's own
 * statistics (jestats.h), laid to the sampled allocation sites of a heap
 * profile that allocate in the class and, by their accumulated counts,
 * freed objects there; large classes' padding; and the pages (dirty,
 * muzzy, retained, metadata, thread caches) beside the process's RSS. */
#ifndef FK_WASTE_H
#define FK_WASTE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "jestats.h"
#include "profile.h"

/* A record of sampled allocations' sizes by stack (waste_split.c), from
 * jemalloc's experimental.prof_recent (core/life.h's fk_life_each). */
struct fk_waste_split;

/* One allocation site (a stack of the profile). */
struct fk_waste_site {
	size_t stack;                  /* index into p->stacks */
	int bin;                       /* its small class, or FK_WASTE_LARGE */
	double live_objs, live_bytes;  /* unbiased, in use */
	double freed_objs;             /* unbiased, allocated less in use; 0 without
					  accumulated counts */
	double waste;                  /* bytes laid to it */
	int by_record;                 /* its class from a record of its samples' sizes
					  (struct fk_waste_split), not its mean size */
};
#define FK_WASTE_LARGE FK_JESTATS_LARGE

/* One small class with slabs. */
struct fk_waste_class {
	size_t bin;                    /* index into the statistics' bins */
	uint64_t waste;                /* (curslabs * nregs - curregs) * size */
	uint64_t tail;                 /* curslabs * (slab_size - nregs * size) */
	double attributed;             /* laid to sites, at most waste */
	size_t nsites;                 /* sites in it with waste, the first of them
					  at sites[first] (sites are by class, then waste) */
	size_t first;
};

/* RSS's parts, in order; FK_WASTE_NPARTS of them. */
enum fk_waste_part {
	FK_PART_LIVE,                  /* allocated less the thread caches */
	FK_PART_TCACHE,                /* regions cached in threads' tcaches */
	FK_PART_HOLES,                 /* small classes' slab waste */
	FK_PART_TAILS,                 /* slab bytes no region fits in */
	FK_PART_LARGE_PAD,             /* active large pages past what is allocated */
	FK_PART_DIRTY,                 /* freed pages not yet purged */
	FK_PART_MUZZY,                 /* purged lazily: resident until reclaimed */
	FK_PART_METADATA,              /* jemalloc's own, resident */
	FK_PART_HOOK,                  /* the hook's own arena, resident */
	FK_PART_FILES,                 /* file-backed and shared pages */
	FK_PART_OTHER,                 /* the rest of RSS: stacks, other allocators */
	FK_WASTE_NPARTS
};

/* The name of part i ("live", "tcache", ...), NULL past the last. */
const char *fk_waste_part_name(int i);

/* jemalloc's radix tree of pages (src/rtree.c, rtree.h): its leaves come
 * from the metadata, each counted resident whole (with 48-bit addresses
 * and 4 KiB pages, 2 MiB for each GiB of address space holding jemalloc's
 * extents), while the kernel holds only the leaf pages jemalloc wrote (one
 * 4 KiB page names the pages of 2 MiB of address space). */
struct fk_waste_rtree {
	uint64_t leaves;               /* stats.metadata_rtree's, else the leaf spans of
					  the anonymous writable mappings */
	uint64_t counted;              /* their bytes, as stats.resident counts them */
	uint64_t resident;             /* at most: a leaf page for every span of those
					  mappings a leaf page names */
	int from_maps;                 /* leaves counted from the mappings (jemalloc
					  before 5.3.1 has no stats.metadata_rtree) */
};

/* The radix tree's leaves from st and the mappings m[0..n) (ascending, as
 * /proc/PID/maps lists them) into *r; all 0 for a geometry it does not
 * know (not 48-bit addresses and 1 KiB to 64 KiB pages) or no mapping. */
void fk_waste_rtree_of(struct fk_waste_rtree *r, const struct fk_jestats *st,
		       const struct fk_mapping *m, size_t n);

/* The process's own figures, where known (the hook), else -1; the radix
 * tree's leaves from its mappings where have_rtree (else a profile's
 * mappings, the dump's MAPPED_LIBRARIES, are used). */
struct fk_waste_proc {
	int64_t rss, file_rss, hook_resident;
	struct fk_waste_rtree rtree;
	int have_rtree;
};

struct fk_waste {
	struct fk_waste_site *sites;   /* by class (small by size, then large), each by
					  waste, heaviest first */
	size_t nsites;
	struct fk_waste_class *classes;  /* with slabs, by waste, heaviest first */
	size_t nclasses;
	int from_accum;                /* sites were blamed from accumulated counts */
	uint64_t holes, tails, attributed, large_pad, large_extents;
	int64_t part[FK_WASTE_NPARTS]; /* bytes; -1 unknown */
	/* What stats.resident counts that the kernel never gave, taken out of
	 * the parts (metadata; large_pad, then live): the radix tree's leaf
	 * pages jemalloc never wrote, and the pages past the first of each
	 * live sampled small object's extent (its own extent, padded: the
	 * smallest large class before 5.3.1, its class rounded to a page
	 * from 5.3.1, which stats.allocated leaves out). */
	struct fk_waste_rtree rtree;   /* all 0 when the mappings are unknown */
	double samples;                /* live sampled small objects (the dump's raw counts) */
	double sampled_untouched;      /* bytes */
	char note[3][240];             /* what is missing and what is shown instead, or "";
					  note[2]: how the sites' sizes are known */
	uint64_t records, matched;     /* the split's records, those of the profile's stacks */
};

/* Estimates w (zeroed by the call) from st and, when p is not NULL, its
 * stacks (unbiased; bytes over objects give each site's size, and its
 * class the nearest, fk_jestats_class). Without per-class figures
 * (st->have_bins 0) the sites are listed and none is blamed. RSS's parts
 * leave out what jemalloc counts resident and never touched (struct
 * fk_waste's rtree and sampled_untouched): the leaves from pr, else from
 * p's mappings; the sampled objects from p's raw counts.
 * A class's waste goes to its sites in proportion to the holes each would
 * leave if its objects had filled slabs of their own and its frees had
 * fallen at random among them, (L+F)(1-(1-q)^nregs) - L regions for L in
 * use, F freed, q = L/(L+F), at most F and L(nregs-1); never more than
 * the class's waste in all, the rest unattributed. A site that freed
 * nothing in its class is never blamed. pr may be NULL. 0, or -1 with
 * err (out of memory). */
int fk_waste_compute(struct fk_waste *w, const struct fk_jestats *st,
		     const struct fk_profile *p, const struct fk_waste_proc *pr,
		     struct fk_err *err);

/* fk_waste_compute with each stack's sizes from a record of its samples
 * where sp (may be NULL) holds records of it: the stack becomes one site
 * a class its records fall in, its objects in use shared as its live
 * records' unbiased counts are, its freed ones as its freed records'
 * (as all its records' where it has none of a kind). */
int fk_waste_compute_split(struct fk_waste *w, const struct fk_jestats *st,
			   const struct fk_profile *p, const struct fk_waste_proc *pr,
			   struct fk_waste_split *sp, struct fk_err *err);

void fk_waste_release(struct fk_waste *w);

/* A record for p's stacks under st's classes (both borrowed; they must
 * outlive it). NULL when out of memory. */
struct fk_waste_split *fk_waste_split_new(const struct fk_jestats *st,
					  const struct fk_profile *p);
void fk_waste_split_free(struct fk_waste_split *sp);

/* The stacks of p whose samples are of several sizes: their bytes over
 * objects, in use or accumulated, farther from their small class than
 * jemalloc 5.3's unbiased counts stray from one size (0.1 % plus 4 % of
 * the size over the sampling interval, up to 4.1 %); only these need a
 * split. */
size_t fk_waste_mixed_stacks(const struct fk_jestats *st, const struct fk_profile *p);

/* A split from the lifetimes raw form data[0..len) (core/life.h;
 * borrowed for the call), or from the file path ("-": standard input).
 * NULL with err (malformed, out of memory). */
struct fk_waste_split *fk_waste_split_read(const struct fk_jestats *st,
					   const struct fk_profile *p, const char *data,
					   size_t len, struct fk_err *err);
struct fk_waste_split *fk_waste_split_load(const struct fk_jestats *st,
					   const struct fk_profile *p, const char *path,
					   struct fk_err *err);

/* Adds one record (an fk_life_rec_fn; ctx is the split): its usable
 * size, freed or not, its stack (leaf first). A stack p does not hold is
 * counted and left out. 0, or -1 when out of memory. */
int fk_waste_split_add(void *ctx, uint64_t usize, int released, const uint64_t *addrs,
		       uint32_t depth);

/* The records added and those whose stack p holds (sp may be NULL: 0). */
void fk_waste_split_counts(const struct fk_waste_split *sp, uint64_t *records,
			   uint64_t *matched);

/* Ends adding; the number of (stack, class) cells, at most the sites the
 * split adds to a profile's. */
size_t fk_waste_split_ncells(struct fk_waste_split *sp);

/* Writes stack's sites, one a class its records fall in, into out (room
 * for the cells), sharing live objects in use and freed as above; the
 * number written, 0 when no record has the stack. After ncells. */
size_t fk_waste_split_sites(const struct fk_waste_split *sp, size_t stack, double live,
			    double freed, struct fk_waste_site *out);

/* Makes p's stacks hold their waste as exact in-use bytes (period 0, one
 * object each stack with waste, no per-thread lines, no accumulated
 * counts), so that any profile writer writes the waste by site. */
void fk_waste_apply(struct fk_profile *p, const struct fk_waste *w);

#endif
