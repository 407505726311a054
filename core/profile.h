/* SPDX-License-Identifier: MIT */
/* The profile model shared by every stage: the stacks, counts, threads and
 * memory maps of one jemalloc heap dump, plus (after symbolize) what each
 * address resolves to. Filled by the dump and symbolized-profile readers
 * (heapdump.h, symprof.h); read by the encoders and the renderer.
 *
 * Ownership: a profile owns everything reachable from it (arena, arrays,
 * the input buffer it was parsed from); all pointers stay valid until
 * fk_profile_free. Strings are interned (strtab.h): equal names are equal
 * pointers. */
#ifndef FK_PROFILE_H
#define FK_PROFILE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "err.h"

struct fk_arena;
struct fk_strtab;

/* Raw sampled values of one stack (or one thread of it), as in the dump:
 * "n: s [an: as]". Signed, because a growth profile (jeprof-raw --base
 * --keep-negative) may hold shrinkage; dumps from jemalloc never do. */
struct fk_counts {
	int64_t objs, bytes;           /* in use at dump time */
	int64_t acc_objs, acc_bytes;   /* accumulated (prof_accum), else 0 */
};

/* Values after unbiasing (DESIGN.md, "Statistics"). */
struct fk_values {
	double objs, bytes, acc_objs, acc_bytes;
};

struct fk_thread {
	uint64_t id;                   /* N of "tN:" */
	const char *name;              /* thread name after the counts, or NULL */
};

/* The counts of one stack in one thread. */
struct fk_tcounts {
	uint32_t thread;               /* index into fk_profile.threads */
	struct fk_counts c;
};

/* The root-most "address" of a stack jemalloc cut at FK_MAX_DEPTH frames
 * (its caller frames are lost): the dump reader appends it to every stack
 * of exactly that depth, writers keep it, and every stage names it
 * "[truncated]", so cut stacks show one [truncated] root instead of
 * posing as extra roots. No code address is this high. */
#define FK_ADDR_TRUNCATED UINT64_MAX

struct fk_stack {
	const uint64_t *addrs;         /* leaf first, as in the dump; depth 0 = bare "@";
					  a cut stack ends in FK_ADDR_TRUNCATED */
	uint32_t depth;
	uint32_t nthr;
	const struct fk_tcounts *thr;  /* per-thread lines, in input order */
	struct fk_counts c;            /* the "t*:" line (legacy: the line itself) */
};

enum fk_mapkind {
	FK_MAP_FILE,                   /* a path: executable, library, mapped file */
	FK_MAP_ANON,                   /* no path: anonymous or JIT memory */
	FK_MAP_SPECIAL,                /* "[vdso]", "[heap]", "[stack]", "[vvar]", ... */
};

/* One line of MAPPED_LIBRARIES (the /proc/PID/maps format). */
struct fk_mapping {
	uint64_t start, limit;         /* [start, limit) */
	uint64_t offset;               /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor; /* the device of the file ("fe:01") */
	const char *path;              /* interned; "" for anonymous; without " (deleted)" */
	char perms[5];                 /* "r-xp" */
	enum fk_mapkind kind;
	unsigned deleted : 1;          /* the path ended in " (deleted)" */
};

/* One function frame of a resolved address. */
struct fk_frame {
	const char *name;              /* display name (demangled) */
	const char *sysname;           /* linkage name (mangled); == name if same */
	const char *file;              /* source file, or NULL */
	uint32_t line;                 /* source line, 0 if unknown */
};

/* What one address resolves to. Frames innermost first: frames[0] is the
 * function the code was inlined into last, frames[n-1] the real (outermost)
 * function. Keys follow jeprof: a stack's leaf address is its own key, every
 * caller address is keyed by address - 1 (fk_stack_key). */
struct fk_sym {
	uint64_t key;
	uint32_t nframes;
	const struct fk_frame *frames;
	/* 1 when the only name is a placeholder ("libfoo.so+0x1234",
	 * "[anon]+0x10"): no function is known for this address. */
	unsigned placeholder : 1;
};

/* A module's identity as symbolize saw it. */
struct fk_module {
	const char *path;              /* interned, as in the maps */
	const char *build_id;          /* lowercase hex, or NULL */
};

enum fk_format {
	FK_FMT_V2,                     /* heap_v2/R (jemalloc >= 4) */
	FK_FMT_LEGACY,                 /* heap profile: ... @ heap_v2/R (jemalloc 3, gperftools),
					  heapprofile, heapz_v2/R, heap/R */
	FK_FMT_GROWTH,                 /* heap profile: ... @ growthz (tcmalloc's growth stacks) */
};

struct fk_profile {
	struct fk_arena *arena;
	struct fk_strtab *strs;
	const char *source;            /* input name for messages, interned */

	enum fk_format format;
	uint64_t period;               /* R of heap_v2/R; 0 = not sampled ("heapprofile", growth) */
	struct fk_counts header;       /* header totals as read: never trusted */
	struct fk_tcounts *hthr;       /* header per-thread lines */
	size_t nhthr;
	int has_accum;                 /* some [an: as] field is non-zero */

	struct fk_thread *threads;     /* distinct thread ids, first-seen order */
	size_t nthreads;

	struct fk_stack *stacks;       /* in input order */
	size_t nstacks;

	struct fk_mapping *maps;       /* in input order */
	size_t nmaps;
	const char *maps_text;         /* MAPPED_LIBRARIES body verbatim */
	size_t maps_len;

	/* Filled by symbolize or the symbolized-profile reader; else empty. */
	int symbolized;
	int allocator_frames_kept;     /* symbolize --keep-allocator-frames */
	const char *binary;            /* "binary=" of the symbol section, or NULL */
	struct fk_sym *syms;           /* sorted by key, unique keys */
	size_t nsyms;
	struct fk_module *modules;
	size_t nmodules;
};

/* Returns a new empty profile naming its input source (copied), or NULL. */
struct fk_profile *fk_profile_new(const char *source);

/* Frees p and all it owns. NULL is a no-op. */
void fk_profile_free(struct fk_profile *p);

/* Hands the buffer data (malloc'd) to p, to be freed with it. */
void fk_profile_own(struct fk_profile *p, void *data);

/* Hands an input from fk_map_input (io.h) to p, released with it. */
void fk_profile_own_input(struct fk_profile *p, char *data, size_t len, int mapped);

/* The symbol-table key of frame i of stack s: the address for the leaf
 * (i == 0), the address minus 1 for callers (a return address points past
 * the call). */
static inline uint64_t fk_stack_key(const struct fk_stack *s, uint32_t i)
{
	return i == 0 ? s->addrs[0] : s->addrs[i] - 1;
}

/* Unbiases one set of raw counts with p's period (DESIGN.md: per stack,
 * n, s *= 1 / (1 - exp(-(s/n)/R)); n == 0 stays 0; R == 0 means exact).
 * Never NaN or infinite. */
struct fk_values fk_unbias(const struct fk_profile *p, const struct fk_counts *c);

/* Sum of the unbiased values of all stacks (never the header). */
struct fk_values fk_profile_totals(const struct fk_profile *p);

/* Writes p's figures to out, one "name: value" line each: the unbiased
 * totals (objects, bytes, and with accumulated counts alloc_objects and
 * alloc_bytes, rounded), stacks, the deepest stack (a cut stack's mark not
 * counted), mappings, threads, period (jeprof-raw --stats). Returns 0, or
 * -1 on a write error. */
int fk_profile_stats_write(const struct fk_profile *p, FILE *out);

/* Returns the mapping holding address addr, or NULL. Maps must be sorted by
 * fk_profile_index_maps first (readers do it). */
const struct fk_mapping *fk_profile_map_of(const struct fk_profile *p, uint64_t addr);

/* Builds the address index of maps. Returns 0 or -1 (out of memory). */
int fk_profile_index_maps(struct fk_profile *p, struct fk_err *err);

/* Returns the symbol of key, or NULL when the key was not resolved. */
const struct fk_sym *fk_profile_sym(const struct fk_profile *p, uint64_t key);

/* Sorts p->syms by key (callers that append out of order call this once). */
void fk_profile_sort_syms(struct fk_profile *p);

/* Returns the build-id recorded for module path (interned or not), or NULL. */
const char *fk_profile_build_id(const struct fk_profile *p, const char *path);

#endif
