/* SPDX-License-Identifier: MIT */
/* Orchestration of symbolize: collect the distinct addresses of all stacks,
 * resolve each once in two phases (looked up in its module on a few
 * threads, smod.c and modpool.c; then its names interned here, on one),
 * drop the leading allocator frames, and store one symbol per key in the
 * profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "limits.h"
#include "maps.h"
#include "strtab.h"
#include "symbolize_int.h"


struct run {
	struct fk_symctx c;
	uint32_t leaf_ret;             /* 1: every leaf is a return address */
	struct fk_profile *p;
	const struct fk_symbolize_opts *o;
	struct fk_err *err;
	uint64_t *raddr;               /* distinct resolve addresses, sorted */
	struct fk_u64map index;        /* resolve address -> index in raddr */
	struct fk_rawres *raw;         /* phase one's result per address */
	struct fk_symres *res;
	size_t n;
	/* Where frames and their strings are made: the profile's, or with a
	 * cache, the cache's string table for all (equal strings must stay
	 * equal pointers) and its arena for the frames of cached modules. */
	struct fk_strtab *strs;
	struct fk_arena *arena;
};

static int nomem(struct run *r)
{
	return fk_err_set(r->err, FK_ENOMEM, 0, "out of memory");
}

static const char *intern(struct run *r, const char *s, size_t n)
{
	if (n > FK_MAX_NAME)
		n = FK_MAX_NAME;
	return fk_strtab_intern(r->strs, s, n);
}

/* A one-frame placeholder "base+0xADDR": the ELF virtual address in a
 * module that was read, else the file offset; just "base" when off is
 * UINT64_MAX. */
static int placeholder(struct run *r, struct fk_symres *out, const char *base,
		       uint64_t off)
{
	char buf[512];
	int n = off == UINT64_MAX ? snprintf(buf, sizeof buf, "%.400s", base)
		: snprintf(buf, sizeof buf, "%.400s+0x%llx", base, (unsigned long long)off);
	struct fk_frame *f = fk_arena_alloc(r->arena, sizeof *f);
	if (!f || n < 0)
		return nomem(r);
	f->name = f->sysname = intern(r, buf, (size_t)n);
	if (!f->name)
		return nomem(r);
	f->file = NULL;
	f->line = 0;
	out->frames = f;
	out->nframes = 1;
	out->placeholder = 1;
	return 0;
}

/* Sets f's names from a raw (possibly mangled, versioned, cloned) name. */
static int set_names(struct run *r, struct fk_frame *f, const char *raw)
{
	size_t len = strlen(raw);
	size_t sys = fk_symname_syslen(raw, len);
	size_t base = fk_symname_baselen(raw, len);
	char *dem = fk_symname_demangle(raw, base);
	f->sysname = intern(r, raw, sys);
	f->name = dem ? intern(r, dem, strlen(dem)) : intern(r, raw, base);
	free(dem);
	return f->name && f->sysname ? 0 : nomem(r);
}

/* Reports, once, what went wrong with the debug files of m. */
static void report_debug(struct run *r, struct fk_smod *m)
{
	if (m->state != FK_SMOD_READY)
		return;
	m->state = FK_SMOD_REPORTED;
	if (!r->o->warn)
		return;
	if (m->dw && fk_dwline_missing_dwo(m->dw)) {
		char why[400];
		snprintf(why, sizeof why, "split DWARF file %.255s %s: no inline "
			 "frames for its code", fk_dwline_missing_dwo(m->dw),
			 fk_dwline_dwo_refused(m->dw) ? "is not a regular file" : "not found");
		r->o->warn(r->o->warn_ctx, m->path, why);
	}
	if (m->debug_why[0])
		r->o->warn(r->o->warn_ctx, m->path, m->debug_why);
}

static int from_dwarf(struct run *r, struct fk_rawres *raw, struct fk_symres *out)
{
	struct fk_dwframe *dw = raw->dw;
	int n = raw->n;
	struct fk_frame *f = fk_arena_alloc(r->arena, (size_t)n * sizeof *f);
	if (!f)
		return nomem(r);
	for (int i = 0; i < n; i++) {
		/* A linkage name matters only when mangled (C++ and legacy
		 * Rust "_Z", Rust v0 "_R"); for C it is an asm label at best
		 * (glibc's __GI___libc_malloc). */
		if (dw[i].linkage && strncmp(dw[i].linkage, "_Z", 2) != 0 &&
		    strncmp(dw[i].linkage, "_R", 2) != 0 && dw[i].name)
			dw[i].linkage = NULL;
		const char *raw_name = dw[i].linkage ? dw[i].linkage : dw[i].name;
		if (!raw_name)
			raw_name = "??";
		if (set_names(r, &f[i], raw_name) != 0)
			return -1;
		/* Without a linkage name the DWARF name is already plain. */
		if (!dw[i].linkage && dw[i].name)
			f[i].name = f[i].sysname = intern(r, dw[i].name, strlen(dw[i].name));
		f[i].file = dw[i].file ? intern(r, dw[i].file, strlen(dw[i].file)) : NULL;
		f[i].line = dw[i].line;
		if (!f[i].name || (dw[i].file && !f[i].file))
			return nomem(r);
	}
	out->frames = f;
	out->nframes = (uint32_t)n;
	return 0;
}

static int from_symbol(struct run *r, const struct fk_rawres *raw, struct fk_symres *out)
{
	struct fk_frame *f = fk_arena_alloc(r->arena, sizeof *f);
	if (!f)
		return nomem(r);
	if (set_names(r, f, raw->sym) != 0)
		return -1;
	f->file = raw->file ? intern(r, raw->file, strlen(raw->file)) : NULL;
	f->line = raw->file ? raw->line : 0;
	if (raw->file && !f->file)
		return nomem(r);
	out->frames = f;
	out->nframes = 1;
	return 0;
}

/* Opens the module of a file mapping once, warning when it is unusable.
 * Returns the module (usable or not), NULL for none, or sets *fail. */
static struct fk_smod *module_of(struct run *r, const struct fk_mapping *mp,
				 int *fail)
{
	struct fk_smod *m = fk_modmap_module(&r->c, mp);
	if (m && m->state == FK_SMOD_NEW) {
		char why[512];
		int rc = r->c.cache ? fk_symcache_take(r->c.cache, m) : 0;
		if (rc == 1)
			return m;
		rc = rc < 0 ? -2 : fk_smod_open(m, why, sizeof why);
		if (rc == 0 && r->c.cache && fk_symcache_track(r->c.cache, m) != 0)
			rc = -2;
		if (rc == -2) {
			*fail = nomem(r);
			return NULL;
		}
		if (rc != 0 && r->o->warn)
			r->o->warn(r->o->warn_ctx, m->path, why);
	}
	return m;
}

/* Every address of a file must lie in the code of the file found at its
 * path; one that does not shows the file is not the one the process ran
 * (replaced, or a different file at a deleted path): a layout check
 * alone cannot tell small files apart. */
static int check_code(struct run *r)
{
	int fail = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct fk_mapping *mp = fk_profile_map_of(r->p, r->raddr[i]);
		if (!mp || mp->kind != FK_MAP_FILE)
			continue;
		struct fk_smod *m = module_of(r, mp, &fail);
		if (fail)
			return -1;
		uint64_t off = r->raddr[i] - mp->start + mp->offset;
		if (!m || m->state < FK_SMOD_OPEN || fk_modmap_in_code(m, off))
			continue;
		m->state = FK_SMOD_BAD;
		if (r->o->warn) {
			char why[160];
			snprintf(why, sizeof why, "file offset 0x%llx of a stack address "
				 "is outside the file's code", (unsigned long long)off);
			r->o->warn(r->o->warn_ctx, m->path, why);
		}
	}
	return 0;
}

/* The module address of resolve address raddr in a usable module, or
 * NULL. */
static struct fk_smod *module_addr(struct run *r, uint64_t raddr, uint64_t *addr)
{
	const struct fk_mapping *mp = fk_profile_map_of(r->p, raddr);
	if (!mp || mp->kind != FK_MAP_FILE)
		return NULL;
	struct fk_smod *m = fk_modmap_module(&r->c, mp);
	uint64_t off = raddr - mp->start + mp->offset;
	if (!m || m->state < FK_SMOD_OPEN || fk_modmap_addr(m, off, addr) != 0)
		return NULL;
	return m;
}

/* Phase one: looks the addresses up in their modules, on a few threads
 * (nothing is interned there). */
static int lookup(struct run *r)
{
	struct fk_modaddr *v = malloc((r->n ? r->n : 1) * sizeof *v);
	if (!v)
		return nomem(r);
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		v[n].mod = module_addr(r, r->raddr[i], &v[n].addr);
		v[n].out = &r->raw[i];
		if (v[n].mod && v[n].mod->centry && fk_symcache_get(v[n].mod, v[n].addr))
			continue;
		if (v[n].mod)
			n++;
	}
	int rc = fk_modpool_lookup(v, n, r->o);
	free(v);
	return rc == 0 ? 0 : nomem(r);
}

/* Drops the allocator functions inlined into the program's function at
 * the leaf of out, or marks out an allocator frame by its outermost one. */
static void trim_alloc(struct run *r, struct fk_symres *out)
{
	const struct fk_frame *outer = &out->frames[out->nframes - 1];
	if (fk_alloc_is_frame(NULL, outer->name, outer->sysname)) {
		out->alloc = 1;
	} else if (!r->o->keep_allocator_frames) {
		/* Allocator code inlined into the program's function (Rust
		 * inlines alloc::alloc::alloc and RawVec into its callers):
		 * the call here is the allocation, so those inline frames go
		 * as an allocator function's would. */
		uint32_t k = 0;
		while (k + 1 < out->nframes &&
		       fk_alloc_is_frame(NULL, out->frames[k].name, out->frames[k].sysname))
			k++;
		out->frames += k;
		out->nframes -= k;
	}
}

static int resolve_module(struct run *r, struct fk_smod *m, uint64_t addr,
			  struct fk_rawres *raw, struct fk_symres *out);

/* Phase two for an address in a file: interns what phase one found (or
 * looks it up now, when phase one could not), or takes the frames the
 * cache kept for it. */
static int resolve_file(struct run *r, const struct fk_mapping *mp,
			uint64_t raddr, struct fk_rawres *raw, struct fk_symres *out)
{
	int fail = 0;
	struct fk_smod *m = module_of(r, mp, &fail);
	uint64_t off = raddr - mp->start + mp->offset, addr;
	if (fail)
		return -1;
	if (!m)
		return placeholder(r, out, fk_maps_basename(mp->path), off);
	out->alloc = fk_alloc_is_frame(m->base, NULL, NULL) ? 1 : 0;
	if (m->state < FK_SMOD_OPEN || fk_modmap_addr(m, off, &addr) != 0)
		return placeholder(r, out, m->base, off);
	if (m->centry) {
		const struct fk_symres *hit = fk_symcache_get(m, addr);
		report_debug(r, m);
		if (hit) {
			*out = *hit;
			return 0;
		}
		r->arena = fk_symcache_arena(r->c.cache);
	}
	int rc = resolve_module(r, m, addr, raw, out);
	r->arena = r->p->arena;
	/* A frame not kept is made again next time. */
	if (rc == 0 && m->centry)
		fk_symcache_put(m, addr, out);
	return rc;
}

/* Phase two for module address addr of usable module m. */
static int resolve_module(struct run *r, struct fk_smod *m, uint64_t addr,
			  struct fk_rawres *raw, struct fk_symres *out)
{
	if (raw->kind == FK_RAW_NONE && fk_smod_lookup(m, addr, raw) != 0)
		return nomem(r);
	report_debug(r, m);
	int rc;
	switch (raw->kind) {
	case FK_RAW_DWARF:
		rc = from_dwarf(r, raw, out);
		free(raw->dw);          /* interned: no longer needed */
		raw->dw = NULL;
		break;
	case FK_RAW_SYMBOL:
		rc = from_symbol(r, raw, out);
		break;
	default:
		/* At the ELF virtual address, the one addr2line, gdb and
		 * objdump take. */
		return placeholder(r, out, m->base, raw->start - m->bias);
	}
	if (rc == 0)
		trim_alloc(r, out);
	return rc;
}

static int resolve(struct run *r, size_t i)
{
	uint64_t raddr = r->raddr[i];
	struct fk_symres *out = &r->res[i];
	memset(out, 0, sizeof *out);
	const struct fk_mapping *mp = fk_profile_map_of(r->p, raddr);
	/* Outside every mapping: code of a module unloaded before the dump
	 * (dlclose), whose file is unknown. One frame for all of them, so
	 * their stacks merge instead of splitting per address. */
	/* The mark of a stack jemalloc cut (a caller's key is address - 1). */
	if (raddr >= FK_ADDR_TRUNCATED - 1)
		return placeholder(r, out, "[truncated]", UINT64_MAX);
	if (!mp)
		return placeholder(r, out, "[unmapped]", UINT64_MAX);
	switch (mp->kind) {
	case FK_MAP_FILE:
		return resolve_file(r, mp, raddr, &r->raw[i], out);
	case FK_MAP_ANON:
		return placeholder(r, out, "[anon]", raddr - mp->start + mp->offset);
	default:
		return placeholder(r, out, mp->path, raddr - mp->start);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static const struct fk_symres *res_of(const struct run *r, uint64_t raddr)
{
	uint32_t i;
	return (i = fk_u64map_get(&r->index, raddr)) != UINT32_MAX ? &r->res[i] : NULL;
}

/* The address resolved for frame i of a stack whose original frame index
 * is i + dropped: callers are return addresses, resolved one byte back. */
static uint64_t raddr_of(const struct fk_stack *s, uint32_t i, uint32_t dropped)
{
	return i + dropped == 0 ? s->addrs[i] : s->addrs[i] - 1;
}

/* A direct-mapped memo of the keys already added to a map: stacks repeat
 * the same few addresses frame after frame (a 16k-stack heap has 574k
 * frames and a few hundred distinct addresses), and a hit costs one
 * compare instead of a hash-table probe. */
#define MEMO_SLOTS 1024

struct memo {
	uint64_t key[MEMO_SLOTS];
	unsigned char used[MEMO_SLOTS];
};

/* True when k was seen (passed here) before; else remembers it. */
static int memo_seen(struct memo *m, uint64_t k)
{
	size_t h = (size_t)((k ^ (k >> 10) ^ (k >> 20)) & (MEMO_SLOTS - 1));
	if (m->used[h] && m->key[h] == k)
		return 1;
	m->used[h] = 1;
	m->key[h] = k;
	return 0;
}

static int collect(struct run *r)
{
	struct fk_profile *p = r->p;
	size_t cap = 0;
	struct memo *memo = calloc(1, sizeof *memo);
	if (!memo)
		return nomem(r);
	for (size_t i = 0; i < p->nstacks; i++) {
		for (uint32_t j = 0; j < p->stacks[i].depth; j++) {
			uint64_t a = raddr_of(&p->stacks[i], j, r->leaf_ret);
			if (memo_seen(memo, a))
				continue;
			int rc = fk_u64map_add(&r->index, a, (uint32_t)r->n, NULL);
			if (rc == 0)
				continue;
			if (rc > 0) {
				uint64_t *nv = fk_grow(r->raddr, &cap, r->n, sizeof *nv, 1024);
				if (nv)
					r->raddr = nv;
				else
					rc = -1;
			}
			if (rc < 0) {
				free(memo);
				return nomem(r);
			}
			r->raddr[r->n++] = a;
		}
	}
	free(memo);
	/* Resolve in address order: modules are visited in turn, and
	 * warnings come out in a deterministic order. */
	if (r->n > 1)
		qsort(r->raddr, r->n, sizeof *r->raddr, cmp_u64);
	fk_u64map_release(&r->index);
	for (size_t i = 0; i < r->n; i++)
		if (fk_u64map_add(&r->index, r->raddr[i], (uint32_t)i, NULL) < 0)
			return nomem(r);
	r->raw = calloc(r->n ? r->n : 1, sizeof *r->raw);
	r->res = calloc(r->n ? r->n : 1, sizeof *r->res);
	if (!r->raw || !r->res)
		return nomem(r);
	if (check_code(r) != 0 || lookup(r) != 0)
		return -1;
	/* Phase two, on this thread alone: names are interned in address
	 * order, so warnings come out in a deterministic order. */
	for (size_t i = 0; i < r->n; i++)
		if (resolve(r, i) != 0)
			return -1;
	return 0;
}

struct keyed {
	uint64_t key;
	const struct fk_symres *res;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Drops leading allocator frames and stores the symbols of the final keys. */
static int store(struct run *r)
{
	struct fk_profile *p = r->p;
	int keep = r->o->keep_allocator_frames;
	uint32_t *dropped = calloc(p->nstacks ? p->nstacks : 1, sizeof *dropped);
	if (!dropped)
		return nomem(r);
	for (size_t i = 0; i < p->nstacks; i++) {
		struct fk_stack *s = &p->stacks[i];
		uint32_t k = 0;
		while (!keep && k < s->depth &&
		       res_of(r, raddr_of(s, k, r->leaf_ret))->alloc)
			k++;
		/* A stack made only of allocator frames (jemalloc's own
		 * threads) is kept whole rather than emptied. */
		if (k == s->depth)
			k = 0;
		s->addrs += k;
		s->depth -= k;
		dropped[i] = k + r->leaf_ret;
	}
	/* One symbol per distinct key of the final stacks; the first
	 * occurrence decides (keys and resolve addresses agree but for a
	 * return address that is also some stack's real leaf). */
	struct fk_u64map keys = { 0 };
	struct keyed *v = NULL;
	size_t n = 0, cap = 0;
	struct memo *memo = calloc(1, sizeof *memo);
	int rc = memo ? 0 : -1;
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct fk_stack *s = &p->stacks[i];
		for (uint32_t j = 0; j < s->depth; j++) {
			uint64_t key = fk_stack_key(s, j);
			if (memo_seen(memo, key))
				continue;
			int added = fk_u64map_add(&keys, key, (uint32_t)n, NULL);
			if (added == 0)
				continue;
			struct keyed *nv = added < 0 ? NULL : fk_grow(v, &cap, n, sizeof *v, 1024);
			if (!nv) {
				rc = -1;
				break;
			}
			v = nv;
			v[n].key = key;
			v[n].res = res_of(r, raddr_of(s, j, dropped[i]));
			n++;
		}
	}
	free(dropped);
	free(memo);
	fk_u64map_release(&keys);
	if (rc != 0) {
		free(v);
		return nomem(r);
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_keyed);
	struct fk_sym *syms = malloc((n ? n : 1) * sizeof *syms);
	if (!syms) {
		free(v);
		return nomem(r);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && syms[k - 1].key == v[i].key)
			continue;
		memset(&syms[k], 0, sizeof syms[k]);
		syms[k].key = v[i].key;
		syms[k].frames = v[i].res->frames;
		syms[k].nframes = v[i].res->nframes;
		syms[k].placeholder = v[i].res->placeholder;
		k++;
	}
	free(v);
	free(p->syms);
	p->syms = syms;
	p->nsyms = k;
	return 0;
}

static int store_modules(struct run *r)
{
	struct fk_profile *p = r->p;
	struct fk_module *mods = malloc((r->c.nmods ? r->c.nmods : 1) * sizeof *mods);
	if (!mods)
		return nomem(r);
	size_t n = 0;
	for (size_t i = 0; i < r->c.nmods; i++) {
		const struct fk_smod *m = &r->c.mods[i];
		if (m->state >= FK_SMOD_OPEN && m->build_id) {
			mods[n].path = m->path;
			mods[n].build_id = m->build_id;
			n++;
		}
	}
	free(p->modules);
	p->modules = mods;
	p->nmodules = n;
	return 0;
}

static int set_debug_dirs(struct run *r)
{
	const struct fk_symbolize_opts *o = r->o;
	r->c.debug_dirs = calloc(o->ndebug_dirs + 1, sizeof *r->c.debug_dirs);
	if (!r->c.debug_dirs)
		return nomem(r);
	for (size_t i = 0; i < o->ndebug_dirs; i++) {
		r->c.debug_dirs[i] = strdup(o->debug_dirs[i]);
		if (!r->c.debug_dirs[i])
			return nomem(r);
		r->c.ndebug_dirs++;
	}
	const char *root = o->sysroot ? o->sysroot : "";
	size_t len = strlen(root);
	while (len > 0 && root[len - 1] == '/')
		len--;
	char *d = malloc(len + sizeof "/usr/lib/debug");
	if (!d)
		return nomem(r);
	memcpy(d, root, len);
	memcpy(d + len, "/usr/lib/debug", sizeof "/usr/lib/debug");
	r->c.debug_dirs[r->c.ndebug_dirs++] = d;
	return 0;
}

/* Says, once per server, which debuginfod servers failed. */
static void report_servers(struct run *r)
{
	size_t n = r->o->warn_server ? fk_dinfod_failures(r->c.dinfod) : 0;
	const char *url;
	char why[320];

	for (size_t i = 0; i < n; i++) {
		fk_dinfod_failure(r->c.dinfod, i, &url, why, sizeof why);
		r->o->warn_server(r->o->warn_ctx, url, why);
	}
}

/* With a cache, the mappings of p that are the cache's own views of its
 * modules' files (p is a dump of this very process). 0 or -1. */
static int mark_own(struct run *r)
{
	const struct fk_profile *p = r->p;
	if (!r->c.cache || p->nmaps == 0)
		return 0;
	r->c.own_map = calloc(p->nmaps, 1);
	if (!r->c.own_map)
		return -1;
	for (size_t i = 0; i < p->nmaps; i++)
		r->c.own_map[i] = p->maps[i].kind == FK_MAP_FILE &&
				  fk_symcache_owns(r->c.cache, p->maps[i].start, p->maps[i].limit);
	return 0;
}

int fk_symbolize(struct fk_profile *p, const struct fk_symbolize_opts *o,
		 struct fk_err *err)
{
	static const struct fk_symbolize_opts defaults;
	struct run r;
	memset(&r, 0, sizeof r);
	r.p = p;
	r.o = o ? o : &defaults;
	r.err = err;
	r.c.p = p;
	r.c.o = r.o;
	r.c.elf_internals = fk_zsect_internals();
	r.strs = p->strs;
	r.arena = p->arena;
	if (r.o->cache && fk_symcache_begin(r.o->cache, r.o) == 0) {
		r.c.cache = r.o->cache;
		r.strs = fk_symcache_strs(r.c.cache);
	}
	/* A profile symbolized before with its allocator frames dropped has
	 * return addresses as leaves. */
	r.leaf_ret = p->symbolized && !p->allocator_frames_kept;
	/* Only when DEBUGINFOD_URLS is set (else nothing is loaded). */
	r.c.dinfod = fk_dinfod_new();
	int rc = -1;
	if (set_debug_dirs(&r) != 0)
		goto out;
	if (fk_modmap_init(&r.c) != 0 || mark_own(&r) != 0) {
		nomem(&r);
		goto out;
	}
	if (collect(&r) != 0 || store(&r) != 0 || store_modules(&r) != 0)
		goto out;
	p->symbolized = 1;
	p->allocator_frames_kept = r.o->keep_allocator_frames ? 1 : 0;
	report_servers(&r);
	rc = 0;
out:
	if (r.c.cache)
		fk_symcache_end(r.c.cache, &r.c);
	for (size_t i = 0; i < r.c.nmods; i++)
		fk_smod_release(&r.c.mods[i]);
	fk_modmap_release(&r.c);
	free(r.c.own_map);
	for (size_t i = 0; i < r.c.ndebug_dirs; i++)
		free(r.c.debug_dirs[i]);
	free(r.c.debug_dirs);
	fk_dinfod_free(r.c.dinfod);
	fk_u64map_release(&r.index);
	free(r.raddr);
	for (size_t i = 0; r.raw && i < r.n; i++)
		free(r.raw[i].dw);
	free(r.raw);
	free(r.res);
	return rc;
}
