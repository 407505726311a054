/* SPDX-License-Identifier: MIT */
/* The module cache of repeated symbolization (symbolize.h, fk_symcache):
 * between fk_symbolize calls it keeps each module's opened state (struct
 * fk_smod: libdwfl's Dwfl, PT_LOAD headers, symbol table, DWARF index,
 * unwind table) and the frames each module address resolved to, and lends
 * them to the next call whose dump maps the very same file at the same
 * place. symbolize.c calls it; nothing here reads a dump's addresses. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "dwline_int.h"
#include "grow.h"
#include "maps.h"
#include "strtab.h"
#include "symbolize_int.h"

struct fk_symcache_ent {
	struct fk_smod m;              /* the module, between calls (path,
					  base: ours; ctx, centry: NULL) */
	char *path;                    /* as in the maps */
	char *build_id;                /* lowercase hex, or NULL */
	uint64_t map_ino, map_start;   /* the dump's first mapping of path */
	uint64_t last_use;             /* clock of the last call that used it */
	size_t mod_bytes;              /* what the module holds (est_module) */
	int lent;                      /* given to the call in progress */
	int stale;                     /* found outdated: dropped at the end
					  of the call (its images may be in
					  the call's dump, own below) */
	/* Where libelf mapped the module's files into this process: a dump
	 * of this very process shows those mappings under the module's path,
	 * and they are no part of its loading. */
	struct { uint64_t lo, hi; } own[3];
	size_t nown;
	struct fk_u64map names;        /* module address -> index in res */
	struct fk_symres *res;
	size_t nres, capres;
};

struct fk_symcache {
	size_t budget;
	struct fk_symcache_ent **v;
	size_t n, cap;
	/* The frames of every entry, and their strings, in one table, so
	 * that equal strings stay equal pointers across modules (encoders
	 * and the renderer compare names by pointer). Frames of an evicted
	 * module stay here, dead, until the whole tier is dropped. */
	struct fk_arena *arena;
	struct fk_strtab *strs;
	size_t names_made;             /* frames kept since the tier began */
	uint64_t clock;
	struct fk_symcache_stats st;
	/* The options the entries were made with. */
	int have_opts;
	char *sysroot;
	char **dirs;
	size_t ndirs;
	int keep;
};

static int new_tier(struct fk_symcache *c)
{
	c->arena = fk_arena_new();
	c->strs = c->arena ? fk_strtab_new(c->arena) : NULL;
	c->names_made = 0;
	if (c->strs)
		return 0;
	fk_arena_free(c->arena);
	c->arena = NULL;
	return -1;
}

static void drop_tier(struct fk_symcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct fk_symcache_ent *e = c->v[i];
		fk_u64map_release(&e->names);
		free(e->res);
		e->res = NULL;
		e->nres = e->capres = 0;
	}
	fk_strtab_free(c->strs);
	fk_arena_free(c->arena);
	c->strs = NULL;
	c->arena = NULL;
}

struct fk_symcache *fk_symcache_new(size_t budget_bytes)
{
	struct fk_symcache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->budget = budget_bytes;
	if (new_tier(c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

static void free_ent(struct fk_symcache_ent *e)
{
	fk_smod_release(&e->m);
	fk_u64map_release(&e->names);
	free(e->res);
	free(e->path);
	free(e->build_id);
	free(e);
}

/* Drops entry i (order of the others is kept: eviction ties go by it). */
static void drop(struct fk_symcache *c, size_t i)
{
	free_ent(c->v[i]);
	memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof *c->v);
	c->n--;
	c->st.evictions++;
}

static void free_opts(struct fk_symcache *c)
{
	free(c->sysroot);
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	c->sysroot = NULL;
	c->dirs = NULL;
	c->ndirs = 0;
	c->have_opts = 0;
}

void fk_symcache_free(struct fk_symcache *c)
{
	if (!c)
		return;
	drop_tier(c);
	for (size_t i = 0; i < c->n; i++)
		free_ent(c->v[i]);
	free(c->v);
	free_opts(c);
	free(c);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_opts(const struct fk_symcache *c, const struct fk_symbolize_opts *o)
{
	if (!c->have_opts || !same_str(c->sysroot, o->sysroot) ||
	    c->ndirs != o->ndebug_dirs || c->keep != (o->keep_allocator_frames != 0))
		return 0;
	for (size_t i = 0; i < c->ndirs; i++)
		if (!same_str(c->dirs[i], o->debug_dirs[i]))
			return 0;
	return 1;
}

static int set_opts(struct fk_symcache *c, const struct fk_symbolize_opts *o)
{
	free_opts(c);
	c->keep = o->keep_allocator_frames != 0;
	if (o->sysroot && !(c->sysroot = strdup(o->sysroot)))
		return -1;
	c->dirs = calloc(o->ndebug_dirs ? o->ndebug_dirs : 1, sizeof *c->dirs);
	if (!c->dirs)
		return -1;
	for (; c->ndirs < o->ndebug_dirs; c->ndirs++)
		if (!(c->dirs[c->ndirs] = strdup(o->debug_dirs[c->ndirs])))
			return -1;
	c->have_opts = 1;
	return 0;
}

static size_t live_names(const struct fk_symcache *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->v[i]->nres;
	return n;
}

int fk_symcache_begin(struct fk_symcache *c, const struct fk_symbolize_opts *o)
{
	c->clock++;
	if (!same_opts(c, o)) {
		while (c->n > 0)
			drop(c, c->n - 1);
		if (set_opts(c, o) != 0) {
			free_opts(c);
			return -1;
		}
	}
	/* The frame tier is dropped whole when most of it is dead (frames of
	 * evicted modules) or it alone takes half the budget: frames are
	 * cheap to make again, compared with opening modules. */
	size_t live = live_names(c);
	if (!c->arena || c->names_made > 2 * live + 1024 ||
	    fk_arena_size(c->arena) > c->budget / 2) {
		drop_tier(c);
		if (new_tier(c) != 0)
			return -1;
	}
	return 0;
}

struct fk_strtab *fk_symcache_strs(struct fk_symcache *c)
{
	return c->strs;
}

struct fk_arena *fk_symcache_arena(struct fk_symcache *c)
{
	return c->arena;
}

/* The inode and start of the first mapping of m's path in the dump. */
static void map_key(const struct fk_smod *m, uint64_t *ino, uint64_t *start)
{
	const struct fk_profile *p = m->ctx->p;
	*ino = *start = 0;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct fk_mapping *mp = &p->maps[i];
		if (mp->path == m->path && mp->kind == FK_MAP_FILE &&
		    !(m->ctx->own_map && m->ctx->own_map[i])) {
			*ino = p->maps[i].inode;
			*start = p->maps[i].start;
			return;
		}
	}
}

static int same_id(const struct fk_fileid *a, const struct fk_fileid *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* Whether the file at m's path (under the sysroot) is still the one e
 * opened: opened again the safe way, then compared by fstat. */
static int file_unchanged(const struct fk_smod *m, const struct fk_symcache_ent *e)
{
	char why[64], *full = NULL;
	struct fk_fileid id;
	int fd = fk_rootpath_open(m->ctx->o->sysroot, m->path, &full, why, sizeof why);
	free(full);
	if (fd < 0)
		return 0;
	int rc = fk_smod_fileid(fd, &id) == 0 && same_id(&id, &e->m.id);
	close(fd);
	return rc;
}

/* Moves e's module into m, a module of the call in progress. */
static void lend(struct fk_symcache_ent *e, struct fk_smod *m)
{
	const char *path = m->path, *base = m->base;
	struct fk_symctx *ctx = m->ctx;
	*m = e->m;
	memset(&e->m, 0, sizeof e->m);
	m->path = path;
	m->base = base;
	m->ctx = ctx;
	m->build_id = NULL;
	m->centry = e;
	/* Its debug-file warnings are given again, as an uncached call would. */
	if (m->state == FK_SMOD_REPORTED)
		m->state = FK_SMOD_READY;
	fk_smod_rehome(m);
	e->lent = 1;
}

static void add_own(struct fk_symcache_ent *e, Elf *elf)
{
	size_t size = 0;
	char *raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (!raw || size == 0 || e->nown == sizeof e->own / sizeof e->own[0])
		return;
	e->own[e->nown].lo = (uintptr_t)raw & ~(uint64_t)0xfff;
	e->own[e->nown].hi = ((uintptr_t)raw + size + 0xfff) & ~(uint64_t)0xfff;
	e->nown++;
}

/* Records the images libelf mapped for m: its ELF file, and the file its
 * DWARF index reads (its own handle, or libdwfl's). Only handles already
 * open are asked: nothing is loaded here. */
static void note_own(struct fk_symcache_ent *e, const struct fk_smod *m)
{
	GElf_Addr bias;
	e->nown = 0;
	if (m->mod)
		add_own(e, dwfl_module_getelf(m->mod, &bias));
	if (m->dw && m->dw->elf)
		add_own(e, m->dw->elf);
	if (m->dw && m->dw->dw)
		add_own(e, dwarf_getelf(m->dw->dw));
}

int fk_symcache_owns(const struct fk_symcache *c, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->v[i]->nown; k++)
			if (lo >= c->v[i]->own[k].lo && hi <= c->v[i]->own[k].hi)
				return 1;
	return 0;
}

/* Gives m's module back to e (after lend). */
static void unlend(struct fk_symcache_ent *e, struct fk_smod *m)
{
	e->m = *m;
	e->m.path = e->path;
	e->m.base = fk_maps_basename(e->path);
	e->m.ctx = NULL;
	e->m.centry = NULL;
	e->m.build_id = NULL;
	fk_smod_rehome(&e->m);
	e->lent = 0;
	memset(m, 0, sizeof *m);
}

int fk_symcache_take(struct fk_symcache *c, struct fk_smod *m)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		if (!c->v[i]->lent && !c->v[i]->stale && strcmp(c->v[i]->path, m->path) == 0)
			break;
	if (i == c->n) {
		c->st.misses++;
		return 0;
	}
	struct fk_symcache_ent *e = c->v[i];
	struct fk_profile *p = m->ctx->p;
	const char *want = fk_profile_build_id(p, m->path);
	uint64_t ino, start;
	map_key(m, &ino, &start);
	char why[8];
	int ok = ino == e->map_ino && start == e->map_start && file_unchanged(m, e) &&
		 !(want && e->build_id && strcmp(want, e->build_id) != 0);
	if (ok) {
		lend(e, m);
		/* The dump's mappings must still fit the file's segments. */
		ok = fk_modmap_check(m, why, sizeof why) == 0;
		if (ok && e->build_id &&
		    !(m->build_id = fk_strtab_intern(p->strs, e->build_id, strlen(e->build_id)))) {
			unlend(e, m);
			return -1;
		}
		if (!ok) {
			/* Back to a module never opened. */
			const char *path = m->path, *base = m->base;
			struct fk_symctx *ctx = m->ctx;
			fk_smod_release(m);
			memset(m, 0, sizeof *m);
			m->path = path;
			m->base = base;
			m->ctx = ctx;
		}
	}
	if (!ok) {
		e->stale = 1;
		c->st.misses++;
		return 0;
	}
	c->st.hits++;
	return 1;
}

int fk_symcache_track(struct fk_symcache *c, struct fk_smod *m)
{
	static const struct fk_fileid none;
	if (same_id(&m->id, &none))
		return 0;
	if (fk_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v, 16) < 0)
		return -1;
	struct fk_symcache_ent *e = calloc(1, sizeof *e);
	if (!e)
		return -1;
	e->path = strdup(m->path);
	e->build_id = m->build_id ? strdup(m->build_id) : NULL;
	if (!e->path || (m->build_id && !e->build_id)) {
		free(e->path);
		free(e->build_id);
		free(e);
		return -1;
	}
	map_key(m, &e->map_ino, &e->map_start);
	e->lent = 1;
	m->centry = e;
	c->v[c->n++] = e;
	return 0;
}

const struct fk_symres *fk_symcache_get(const struct fk_smod *m, uint64_t addr)
{
	const struct fk_symcache_ent *e = m->centry;
	uint32_t ix = fk_u64map_get(&e->names, addr);
	return ix == UINT32_MAX ? NULL : &e->res[ix];
}

int fk_symcache_put(struct fk_smod *m, uint64_t addr, const struct fk_symres *res)
{
	struct fk_symcache_ent *e = m->centry;
	if (e->nres >= UINT32_MAX - 1)
		return -1;
	if (fk_reserve((void **)&e->res, &e->capres, e->nres + 1, sizeof *e->res, 64) < 0)
		return -1;
	if (fk_u64map_add(&e->names, addr, (uint32_t)e->nres, NULL) < 0)
		return -1;
	e->res[e->nres++] = *res;
	m->ctx->cache_names++;
	return 0;
}

/* Bytes a module holds. Counted exactly: our own tables (PT_LOAD headers,
 * function table, DWARF unit and range tables, inflated debug sections,
 * paths). Estimated: what libelf, libdw and libdwfl build inside (section
 * and symbol tables, abbreviations, line programs, CFI) and the pages of
 * the file they map and touch, as one sixteenth of the file's size; a
 * module with DWARF adds a quarter of its inflated DWARF for libdw's
 * parsed units. */
static size_t est_module(const struct fk_smod *m)
{
	size_t n = sizeof(struct fk_symcache_ent) + m->nloads * sizeof *m->loads +
		   m->funcs.n * sizeof *m->funcs.v;
	n += (m->file ? strlen(m->file) : 0) + (m->debug_path ? strlen(m->debug_path) : 0);
	n += (size_t)(m->id.size / 16);
	const struct fk_dwline *d = m->dw;
	if (d) {
		size_t z = 0;
		for (size_t i = 0; i < d->nz; i++)
			if (d->z[i].done == 1)
				z += d->z[i].dstlen;
		n += z + z / 4 + d->cucap * sizeof *d->cus + d->nrg * sizeof *d->rg;
	}
	return n;
}

static size_t ent_bytes(const struct fk_symcache_ent *e)
{
	return e->mod_bytes + strlen(e->path) + e->capres * sizeof *e->res +
	       e->names.cap * sizeof *e->names.slots;
}

/* The strtab's index, estimated at two 16-byte slots a string. */
static size_t total_bytes(const struct fk_symcache *c)
{
	size_t n = sizeof *c + c->cap * sizeof *c->v;
	for (size_t i = 0; i < c->n; i++)
		n += ent_bytes(c->v[i]);
	if (c->arena)
		n += fk_arena_size(c->arena) + fk_strtab_count(c->strs) * 32;
	return n;
}

/* Evicts least recently used modules (the largest first among those of
 * one call) while c holds more than its budget. */
static void evict(struct fk_symcache *c)
{
	size_t total = total_bytes(c);
	while (total > c->budget && c->n > 0) {
		size_t best = 0;
		for (size_t i = 1; i < c->n; i++) {
			const struct fk_symcache_ent *a = c->v[i], *b = c->v[best];
			if (a->last_use < b->last_use ||
			    (a->last_use == b->last_use && ent_bytes(a) > ent_bytes(b)))
				best = i;
		}
		total -= ent_bytes(c->v[best]);
		drop(c, best);
	}
}

void fk_symcache_end(struct fk_symcache *c, struct fk_symctx *ctx)
{
	for (size_t i = 0; i < ctx->nmods; i++) {
		struct fk_smod *m = &ctx->mods[i];
		struct fk_symcache_ent *e = m->centry;
		if (!e)
			continue;
		size_t j;
		for (j = 0; j < c->n && c->v[j] != e; j++)
			;
		if (m->state < FK_SMOD_OPEN) {
			/* Found unusable during the call: its addresses lie
			 * outside its code. */
			m->centry = NULL;
			drop(c, j);
			continue;
		}
		e->mod_bytes = est_module(m);
		e->last_use = c->clock;
		note_own(e, m);
		unlend(e, m);
	}
	c->names_made += ctx->cache_names;
	ctx->cache_names = 0;
	for (size_t j = c->n; j-- > 0;)
		if (c->v[j]->stale)
			drop(c, j);
	evict(c);
}

void fk_symcache_stats(const struct fk_symcache *c, struct fk_symcache_stats *st)
{
	*st = c->st;
	st->modules = c->n;
	st->bytes = total_bytes(c);
	st->names = live_names(c);
}
