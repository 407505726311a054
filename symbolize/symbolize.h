/* SPDX-License-Identifier: MIT */
/* Symbolization of a heap profile: every address of every stack is mapped
 * through the dump's own MAPPED_LIBRARIES to a module and file offset, then
 * resolved with elfutils (symbol tables, DWARF line and inline information,
 * .eh_frame) to function names, file:line and inline chains. No subprocess;
 * debug files are found by build-id and .gnu_debuglink, and then, only when
 * DEBUGINFOD_URLS is set, asked of those debuginfod servers by build-id. */
#ifndef FK_SYMBOLIZE_H
#define FK_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "profile.h"

/* Called once per module that cannot be used (missing, unreadable, corrupt,
 * not matching the dump's mappings or recorded build-id): module is the path
 * as in the maps, what a short lowercase reason. Both are valid only during
 * the call. The module's addresses become "module+0xOFFSET". */
typedef void fk_symbolize_warn_fn(void *ctx, const char *module, const char *what);

struct fk_symcache;

struct fk_symbolize_opts {
	const char *sysroot;           /* prefix for every module path, or NULL */
	const char *const *debug_dirs; /* extra debug-file folders, or NULL */
	size_t ndebug_dirs;
	int keep_allocator_frames;     /* keep jemalloc's and malloc's frames */
	fk_symbolize_warn_fn *warn;    /* NULL: warnings are dropped */
	void *warn_ctx;
	/* Called (with warn_ctx) once per debuginfod server of
	 * DEBUGINFOD_URLS that failed during the call (an error, or no answer
	 * within DEBUGINFOD_TIMEOUT or 10 s), with its URL as module and the
	 * failure as what (with DEBUGINFOD_URLS whole as module for a failure
	 * of no one server); the modules it would have named stay named as
	 * without it. NULL: dropped. */
	fk_symbolize_warn_fn *warn_server;
	/* Called first on every thread symbolization starts, before that
	 * thread allocates (NULL: none): the hook turns sampling off there. */
	void (*thread_start)(void *ctx);
	void *thread_ctx;
	/* What was learned about each module and address kept between calls
	 * (fk_symcache_new), or NULL: every call starts from scratch. */
	struct fk_symcache *cache;
	/* The maps are this process's own (the hook): a mapped file no longer
	 * at its path (replaced on disk, deleted) is read through
	 * /proc/self/map_files/. Otherwise, without a sysroot, such a file's
	 * addresses stay module+offset, with one warning. */
	int own_process;
};

/* Resolves every address of p's stacks. Fills p->syms (keys per
 * fk_stack_key, one per distinct key of the final stacks), p->modules
 * (build-ids of the files read) and sets p->symbolized. Unless
 * o->keep_allocator_frames, the leading allocator frames of each stack are
 * removed (stacks keep pointing into their address arrays; stacks may then
 * repeat); else p->allocator_frames_kept is set. Symbols already in p are
 * replaced. Everything stored lives in p's arena and string table.
 * Unusable modules never fail the call (they are reported through o->warn).
 * With o->cache, the frames and strings of p->syms are the cache's, not
 * p's (p borrows them): they stay valid until the next fk_symbolize with
 * that cache or fk_symcache_free, whichever comes first; the output and
 * the warnings are the same as without a cache. The cache must not be
 * used by two calls at once. Returns 0, or -1 with err (out of memory only). o may be
 * NULL. */
int fk_symbolize(struct fk_profile *p, const struct fk_symbolize_opts *o,
		 struct fk_err *err);

/* A cache of modules (their opened files, symbol tables, DWARF unit and
 * inline indexes, unwind tables) and of the frames each module address
 * resolved to, for repeated fk_symbolize calls on dumps of one process.
 * An entry is used only for a module of the current dump whose path,
 * file identity (device, inode, size, modification time of the file
 * opened), build-id, mapping inode and start in the dump all match what
 * it was built from, so a module replaced on disk or re-mapped is read
 * again. Entries are evicted least recently used first while the cache
 * holds more than its budget (part estimated, see symcache.c); a call with
 * other options (sysroot, debug folders, keep_allocator_frames) empties it
 * first. */
struct fk_symcache_stats {
	size_t modules;                /* modules held */
	size_t bytes;                  /* bytes held (part estimated) */
	size_t names;                  /* module addresses whose frames are held */
	uint64_t hits, misses;         /* modules reused / opened afresh */
	uint64_t evictions;            /* modules dropped for the budget or stale */
};

/* Returns a new empty cache holding at most about budget_bytes, or NULL
 * when out of memory. */
struct fk_symcache *fk_symcache_new(size_t budget_bytes);

/* Frees c and all it holds (profiles that borrowed from it may no longer
 * be read). NULL is a no-op. */
void fk_symcache_free(struct fk_symcache *c);

/* True when [lo, hi), a mapping of this process, lies inside a file
 * image libelf mapped for a module c holds: a view the cache made, not
 * the loader (a dump of this process lists it under the module's path). */
int fk_symcache_owns(const struct fk_symcache *c, uint64_t lo, uint64_t hi);

/* Fills *st with c's figures. */
void fk_symcache_stats(const struct fk_symcache *c, struct fk_symcache_stats *st);

/* Where fk_symbolize_find_func found a function. */
struct fk_symfind {
	uint64_t vaddr;                /* its ELF virtual address (st_value) */
	const char *table;             /* ".symtab", ".dynsym", ".gnu_debugdata"
					  or "debug file" (static strings) */
	char debug_file[256];          /* the debug file libdwfl used, or "" */
};

/* Looks names[0..n) up as defined functions in the ELF file path: its
 * .symtab, else its .dynsym and .gnu_debugdata, else a debug file found by
 * build-id or .gnu_debuglink under /usr/lib/debug. Only a regular file is
 * opened. Returns the index in names of the first name found (names are
 * tried in their order) with *out filled, -1 when none is defined, or -2
 * with err when the file cannot be read. */
int fk_symbolize_find_func(const char *path, const char *const *names, size_t n,
			   struct fk_symfind *out, struct fk_err *err);

#endif
