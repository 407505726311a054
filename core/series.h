/* SPDX-License-Identifier: MIT */
/* The series extension of multi-column folded stacks: after the
 * "# columns:" line, one "# series: ID key=value ..." line per column
 * carries that snapshot's id, time and jemalloc/process memory figures
 * (man/render-flame.1, "Series"; README.md, "Formats"). heap-series and
 * the hook write it; render-flame reads it and draws a timeline. */
#ifndef FK_SERIES_H
#define FK_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "limits.h"

/* The figures a snapshot may carry, in the order they are written. */
enum fk_series_stat {
	FK_SER_ALLOCATED,              /* jemalloc stats.allocated */
	FK_SER_ACTIVE,                 /* stats.active */
	FK_SER_RESIDENT,               /* stats.resident */
	FK_SER_MAPPED,                 /* stats.mapped */
	FK_SER_RETAINED,               /* stats.retained */
	FK_SER_METADATA,               /* stats.metadata */
	FK_SER_RSS,                    /* the process's resident set size */
	FK_SER_HOOK,                   /* bytes the profiler itself holds (its own
					  arena), left out of the figures above */
	FK_SER_SAMPLING,               /* bytes sampling itself costs: a sampled
					  small object takes a whole extent */
	/* RSS's parts past the live objects (core/waste.h, man/heap-waste.1):
	 * with allocated less tcache, hook and the rest of RSS they add up
	 * to rss. */
	FK_SER_TCACHE,                 /* regions cached in threads' tcaches */
	FK_SER_HOLES,                  /* small classes' slab waste */
	FK_SER_TAILS,                  /* slab bytes no region fits in */
	FK_SER_LARGE_PAD,              /* active large pages past what is allocated */
	FK_SER_DIRTY,                  /* freed pages not yet purged */
	FK_SER_MUZZY,                  /* purged lazily, resident until reclaimed */
	FK_SER_META_RESIDENT,          /* jemalloc's own, resident */
	FK_SER_FILES,                  /* file-backed and shared pages */
	FK_SER_WASTE,                  /* tcache through metadata_resident, summed */
	FK_SER_NSTATS
};

/* The key of each figure in a series line ("allocated", ..., "rss"). */
extern const char *const fk_series_keys[FK_SER_NSTATS];

/* One snapshot's metadata. */
struct fk_snapmeta {
	char id[FK_MAX_COLUMN_NAME + 1];   /* [A-Za-z0-9_.:-]+ */
	int64_t time_ns;                   /* seconds * 1e9 since any origin; -1 = unknown */
	int64_t stat[FK_SER_NSTATS];       /* bytes; -1 = unknown */
};

/* Sets m to id (copied, cut to FK_MAX_COLUMN_NAME) with nothing known. */
void fk_series_meta_init(struct fk_snapmeta *m, const char *id);

/* True when the line s[0..n) (no newline) starts with "# series:". */
int fk_series_is_line(const char *s, size_t n);

/* Parses the series line s[0..n) (no newline; CR tolerated) into m:
 * "# series: ID" then "key=value" fields separated by blanks, where time
 * is decimal seconds (at most 9 decimals) and the figures are byte counts.
 * Unknown keys whose value is a number are skipped, so later writers can
 * add figures. Returns 0, or -1 with err at lineno. */
int fk_series_parse(const char *s, size_t n, uint64_t lineno,
		    struct fk_snapmeta *m, struct fk_err *err);

/* Writes m as one series line with its newline into buf (size bytes;
 * FK_SERIES_LINE_MAX is always enough). Returns the length. */
#define FK_SERIES_LINE_MAX (FK_MAX_COLUMN_NAME + 32 + FK_SER_NSTATS * 32)
size_t fk_series_format(char *buf, size_t size, const struct fk_snapmeta *m);

#endif
