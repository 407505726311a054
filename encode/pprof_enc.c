/* SPDX-License-Identifier: MIT */
/* Heap profile -> the pprof message, packed (profile.proto,
 * github.com/google/pprof proto/profile.proto; conventions of Go's heap
 * profiles): strings interned once with "" first, dense ids from 1 in
 * first-use order, one Location per (address, resolution) with its inline
 * chain innermost first. pprof_gzip.c compresses it. */
#include "pprof_enc.h"
#include "encode_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "allocframes.h"
#include "arena.h"
#include "grow.h"
#include "strtab.h"
#include "utf8.h"

typedef Perftools__Profiles__Location Loc;
typedef Perftools__Profiles__Function Fun;
typedef Perftools__Profiles__Sample Smp;

struct fun_key {
	const char *name, *sysname, *file;
};

/* A Location while stacks are walked: small, so that the walk over every
 * frame of every stack stays in cache; the message is made at the end. */
struct locb {
	uint64_t addr;
	const struct fk_sym *sym;      /* NULL: unresolved */
	uint32_t next;                 /* next location with the same address */
	uint32_t map;                  /* p->maps index + 1, 0 = none */
};

struct enc {
	const struct fk_profile *p;
	const struct fk_pprof_opts *o;
	struct fk_arena *a;
	struct fk_err *err;

	ProtobufCBinaryData *strs;
	size_t nstrs, capstrs;
	struct fk_u64map strptr;       /* string address -> index (fast path) */
	struct fk_u64map strhash;      /* fk_hash of contents -> index */

	struct locb *lb;               /* locations while stacks are walked */
	size_t nlocs, caplocs;
	Loc *locs;                     /* the Location messages, made at the end */
	struct fk_u64map locaddr;      /* address -> newest location index */
	struct fk_u64map lockey;       /* symbol key -> a location index of it */
	struct locmemo *memo;          /* in front of lockey, or NULL */

	Fun *funs;
	struct fun_key *funkey;
	uint32_t *funnext;
	size_t nfuns, capfuns;
	struct fk_u64map funhash;

	uint32_t *mapid;               /* per p->maps index: Mapping id, 0 = none */
	unsigned char *mapsel;         /* per p->maps index: emitted */
	Perftools__Profiles__Mapping *maps;
	size_t nmapsout;

	Smp *smps;
	size_t nsmps, capsmps;
	struct fk_enc_rounders rs;     /* objs, bytes, acc_objs, acc_bytes per leaf */
	int accum;                     /* the alloc_* sample types are written */
	size_t merged;                 /* samples merged by max_samples */
};

static int oom(struct enc *e)
{
	return fk_err_set(e->err, FK_ENOMEM, 0, "out of memory");
}

/* Room for element n of *arr. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	return fk_reserve(arr, cap, n + 1, elem, 256);
}

/* Returns the string-table index of s (NULL counts as ""), or -1. */
static int64_t str_ix(struct enc *e, const char *s)
{
	uint32_t ix;
	size_t n;
	uint64_t h;

	if (!s || !*s)
		return 0;
	ix = fk_u64map_get(&e->strptr, (uint64_t)(uintptr_t)s);
	if (ix != UINT32_MAX)
		return ix;
	n = strlen(s);
	h = fk_hash(s, n);
	ix = fk_u64map_get(&e->strhash, h);
	if (ix != UINT32_MAX && (e->strs[ix].len != n || memcmp(e->strs[ix].data, s, n) != 0))
		ix = UINT32_MAX;       /* a 64-bit collision: keep a duplicate */
	if (ix == UINT32_MAX) {
		if (e->nstrs >= UINT32_MAX - 1 ||
		    grow((void **)&e->strs, &e->capstrs, e->nstrs, sizeof *e->strs) < 0)
			return oom(e);
		ix = (uint32_t)e->nstrs++;
		e->strs[ix].data = (uint8_t *)(uintptr_t)s;
		e->strs[ix].len = n;
		/* proto3 strings are UTF-8, and ingesters refuse others
		 * (Pyroscope): names and paths are bytes, so repair them. */
		if (fk_utf8_valid(s, n) != n) {
			char *fixed = n < SIZE_MAX / 3 ? fk_arena_alloc(e->a, 3 * n) : NULL;

			if (!fixed)
				return oom(e);
			e->strs[ix].data = (uint8_t *)fixed;
			e->strs[ix].len = fk_utf8_repair(fixed, s, n);
		}
		if (fk_u64map_put(&e->strhash, h, ix) < 0)
			return oom(e);
	}
	if (fk_u64map_put(&e->strptr, (uint64_t)(uintptr_t)s, ix) < 0)
		return oom(e);
	return ix;
}

static uint64_t mix3(const void *a, const void *b, const void *c)
{
	uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)(uintptr_t)b + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
	h ^= (uint64_t)(uintptr_t)c + 0x8cb92ba72f3d8dd7ULL + (h << 6) + (h >> 2);
	return h;
}

/* Returns the Function id of frame f, creating the Function, or 0. */
static uint64_t fun_id(struct enc *e, const struct fk_frame *f)
{
	struct fun_key k = { f->name, f->sysname ? f->sysname : f->name, f->file };
	uint64_t h = mix3(k.name, k.sysname, k.file);
	uint32_t ix = fk_u64map_get(&e->funhash, h);
	Fun init = PERFTOOLS__PROFILES__FUNCTION__INIT;
	int64_t sn, ss, sf;

	for (; ix != UINT32_MAX; ix = e->funnext[ix])
		if (e->funkey[ix].name == k.name && e->funkey[ix].sysname == k.sysname &&
		    e->funkey[ix].file == k.file)
			return ix + 1;
	if ((sn = str_ix(e, k.name)) < 0 || (ss = str_ix(e, k.sysname)) < 0 ||
	    (sf = str_ix(e, k.file)) < 0)
		return 0;
	if (e->nfuns >= UINT32_MAX - 1)
		return fk_err_set(e->err, FK_ELIMIT, 0, "too many functions"), 0;
	if (e->nfuns == e->capfuns) {
		size_t cap = e->capfuns;
		struct fun_key *nk;
		uint32_t *nn;

		if (grow((void **)&e->funs, &cap, e->nfuns, sizeof *e->funs) < 0)
			return oom(e), 0;
		nk = fk_resize(e->funkey, cap, cap, sizeof *nk);
		if (!nk)
			return oom(e), 0;
		e->funkey = nk;
		nn = fk_resize(e->funnext, cap, cap, sizeof *nn);
		if (!nn)
			return oom(e), 0;
		e->funnext = nn;
		e->capfuns = cap;
	}
	ix = (uint32_t)e->nfuns++;
	e->funs[ix] = init;
	e->funs[ix].id = ix + 1;
	e->funs[ix].name = sn;
	e->funs[ix].system_name = ss;
	e->funs[ix].filename = sf;
	e->funkey[ix] = k;
	e->funnext[ix] = fk_u64map_get(&e->funhash, h);
	if (fk_u64map_put(&e->funhash, h, ix) < 0)
		return oom(e), 0;
	return ix + 1;
}

/* Two resolutions are the same when they name the same frames. */
static int same_sym(const struct fk_sym *x, const struct fk_sym *y)
{
	uint32_t i;

	if (x == y)
		return 1;
	if (!x || !y || x->nframes != y->nframes)
		return 0;
	for (i = 0; i < x->nframes; i++) {
		const struct fk_frame *a = &x->frames[i], *b = &y->frames[i];

		if (a->name != b->name || a->sysname != b->sysname || a->file != b->file ||
		    a->line != b->line)
			return 0;
	}
	return 1;
}

/* A direct-mapped memo of (key, address) -> Location id in front of
 * lockey: stacks repeat the same frames, and a hit costs one compare
 * instead of a hash-table probe. */
#define LOCMEMO_SLOTS 1024

struct locmemo {
	uint64_t key, addr;
	uint64_t id;                   /* 0: empty */
};

/* Returns the Location id of frame i of stack s, creating it, or 0. */
static uint64_t loc_id(struct enc *e, const struct fk_stack *s, uint32_t i)
{
	uint64_t addr = s->addrs[i];
	const struct fk_sym *sym = NULL;
	uint32_t ix, head;
	struct locb *l;
	const struct fk_mapping *m;

	if (e->p->symbolized) {
		/* A frame's location depends on its address and its key
		 * alone: the one found for them last time, without the
		 * symbol search (one lookup a frame). */
		uint64_t key = fk_stack_key(s, i);
		struct locmemo *mm;

		if (!e->memo)
			e->memo = calloc(LOCMEMO_SLOTS, sizeof *e->memo);
		mm = e->memo ? &e->memo[(key ^ (key >> 10) ^ (key >> 20)) & (LOCMEMO_SLOTS - 1)]
			: NULL;
		if (mm && mm->id && mm->key == key && mm->addr == addr)
			return mm->id;
		ix = fk_u64map_get(&e->lockey, key);
		if (ix != UINT32_MAX && e->lb[ix].addr == addr) {
			if (mm)
				*mm = (struct locmemo){ key, addr, (uint64_t)ix + 1 };
			return ix + 1;
		}
		sym = fk_profile_sym(e->p, fk_stack_key(s, i));
		if (sym && sym->nframes == 0)
			sym = NULL;
	}
	head = fk_u64map_get(&e->locaddr, addr);
	/* Without symbols an address is one location: no need to look. */
	if (!e->p->symbolized && head != UINT32_MAX)
		return head + 1;
	for (ix = head; ix != UINT32_MAX; ix = e->lb[ix].next)
		if (same_sym(e->lb[ix].sym, sym))
			break;
	if (ix != UINT32_MAX) {
		if (fk_u64map_put(&e->lockey, fk_stack_key(s, i), ix) < 0)
			return oom(e), 0;
		return ix + 1;
	}
	if (e->nlocs >= UINT32_MAX - 1)
		return fk_err_set(e->err, FK_ELIMIT, 0, "too many locations"), 0;
	if (grow((void **)&e->lb, &e->caplocs, e->nlocs, sizeof *e->lb) < 0)
		return oom(e), 0;
	ix = (uint32_t)e->nlocs++;
	l = &e->lb[ix];
	l->addr = addr;
	l->sym = sym;
	l->next = head;
	l->map = 0;
	m = fk_enc_map_of(e->p, addr);
	if (m) {
		size_t mi = (size_t)(m - e->p->maps);

		l->map = (uint32_t)mi + 1;
		e->mapsel[mi] = 1;
	}
	if (fk_u64map_put(&e->locaddr, addr, ix) < 0 ||
	    (e->p->symbolized && fk_u64map_put(&e->lockey, fk_stack_key(s, i), ix) < 0))
		return oom(e), 0;
	return ix + 1;
}

/* Makes the Location messages, with their lines, once all are known. */
static int make_locations(struct enc *e)
{
	size_t i, nlines = 0;
	Perftools__Profiles__Line *lines, **lptr;
	Loc init = PERFTOOLS__PROFILES__LOCATION__INIT;
	Perftools__Profiles__Line linit = PERFTOOLS__PROFILES__LINE__INIT;

	for (i = 0; i < e->nlocs; i++)
		nlines += e->lb[i].sym ? e->lb[i].sym->nframes : 0;
	e->locs = malloc((e->nlocs ? e->nlocs : 1) * sizeof *e->locs);
	lines = fk_arena_alloc(e->a, (nlines ? nlines : 1) * sizeof *lines);
	lptr = fk_arena_alloc(e->a, (nlines ? nlines : 1) * sizeof *lptr);
	if (!e->locs || !lines || !lptr)
		return oom(e);
	for (i = 0; i < e->nlocs; i++) {
		const struct locb *b = &e->lb[i];
		Loc *l = &e->locs[i];
		uint32_t j;

		*l = init;
		l->id = i + 1;
		l->address = b->addr;
		l->mapping_id = b->map ? e->mapid[b->map - 1] : 0;
		if (!b->sym)
			continue;
		l->n_line = b->sym->nframes;
		l->line = lptr;
		for (j = 0; j < b->sym->nframes; j++) {
			*lines = linit;
			lines->function_id = fun_id(e, &b->sym->frames[j]);
			if (!lines->function_id)
				return -1;
			lines->line = b->sym->frames[j].line;
			*lptr++ = lines++;
		}
	}
	return 0;
}

static Perftools__Profiles__Label *label(struct enc *e, const char *key,
					 const char *str, int64_t num, const char *unit)
{
	Perftools__Profiles__Label *lb = fk_arena_alloc(e->a, sizeof *lb);
	Perftools__Profiles__Label init = PERFTOOLS__PROFILES__LABEL__INIT;

	if (!lb)
		return oom(e), NULL;
	*lb = init;
	if ((lb->key = str_ix(e, key)) < 0 || (lb->str = str_ix(e, str)) < 0 ||
	    (lb->num_unit = str_ix(e, unit)) < 0)
		return NULL;
	lb->num = num;
	return lb;
}

/* Appends one sample for counts c of a stack whose locations are ids[0..n);
 * thr is the thread (NULL: all threads). */
static int add_sample(struct enc *e, const struct fk_counts *c, uint64_t *ids,
		      uint32_t n, const struct fk_thread *thr, struct fk_enc_rounder *round)
{
	struct fk_values v = fk_unbias(e->p, c);
	int64_t vals[4];
	size_t nv = 0, i, nl = 0;
	int nonzero = 0;
	Smp init = PERFTOOLS__PROFILES__SAMPLE__INIT;
	Smp *s;
	Perftools__Profiles__Label *lbs[3];
	int64_t objs = c->objs ? c->objs : c->acc_objs;
	int64_t bytes = c->objs ? c->bytes : c->acc_bytes;

	if (e->accum) {
		vals[nv++] = fk_enc_round_next(&round[2], v.acc_objs);
		vals[nv++] = fk_enc_round_next(&round[3], v.acc_bytes);
	}
	vals[nv++] = fk_enc_round_next(&round[0], v.objs);
	vals[nv++] = fk_enc_round_next(&round[1], v.bytes);
	for (i = 0; i < nv; i++)
		nonzero |= vals[i] != 0;
	if (!nonzero)
		return 0;
	if (grow((void **)&e->smps, &e->capsmps, e->nsmps, sizeof *e->smps) < 0)
		return oom(e);
	s = &e->smps[e->nsmps++];
	*s = init;
	s->n_location_id = n;
	s->location_id = ids;
	s->n_value = nv;
	s->value = fk_arena_alloc(e->a, nv * sizeof *s->value);
	if (!s->value)
		return oom(e);
	memcpy(s->value, vals, nv * sizeof *vals);
	/* Go's heap profiles label each sample with its object size. */
	if (objs > 0 && (lbs[nl] = label(e, "bytes", NULL, bytes / objs, "bytes")) != NULL)
		nl++;
	else if (objs > 0)
		return -1;
	if (thr) {
		char num[24];
		const char *id;

		snprintf(num, sizeof num, "%" PRIu64, thr->id);
		id = fk_arena_strndup(e->a, num, strlen(num));
		if (!id)
			return oom(e);
		if (!(lbs[nl++] = label(e, "thread", id, 0, NULL)))
			return -1;
		if (thr->name && *thr->name && !(lbs[nl++] = label(e, "thread_name", thr->name, 0, NULL)))
			return -1;
	}
	if (nl) {
		s->n_label = nl;
		s->label = fk_arena_alloc(e->a, nl * sizeof *s->label);
		if (!s->label)
			return oom(e);
		memcpy(s->label, lbs, nl * sizeof *lbs);
	}
	return 0;
}

static int add_stacks(struct enc *e)
{
	const struct fk_profile *p = e->p;
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *s = &p->stacks[i];
		struct fk_enc_rounder *round = fk_enc_rounders_of(&e->rs, p, s);
		uint64_t *ids = NULL;
		uint32_t j;

		if (!round)
			return oom(e);
		if (s->depth) {
			ids = fk_arena_alloc(e->a, s->depth * sizeof *ids);
			if (!ids)
				return oom(e);
		}
		for (j = 0; j < s->depth; j++)
			if (!(ids[j] = loc_id(e, s, j)))
				return -1;
		if (e->o->threads && s->nthr) {
			for (j = 0; j < s->nthr; j++)
				if (add_sample(e, &s->thr[j].c, ids, s->depth,
					       &p->threads[s->thr[j].thread], round) < 0)
					return -1;
		} else if (add_sample(e, &s->c, ids, s->depth, NULL, round) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The build-id of mapping m as symbolize recorded it: the files it read
 * are the authority (under a sysroot, too). A raw profile carries none, so
 * its pprof depends only on the profile, not on the machine encoding it. */
static const char *build_id(struct enc *e, const struct fk_mapping *m)
{
	if (m->kind != FK_MAP_FILE)
		return NULL;
	return fk_profile_build_id(e->p, m->path);
}

/* Chooses the Mapping list: every executable file mapping and every mapping
 * holding a location, the main binary first, then by address; sets the
 * has_* flags from what the locations carry. */
static int add_mappings(struct enc *e)
{
	const struct fk_profile *p = e->p;
	size_t i, n = 0, first = SIZE_MAX;
	Perftools__Profiles__Mapping init = PERFTOOLS__PROFILES__MAPPING__INIT;

	for (i = 0; i < p->nmaps; i++) {
		const struct fk_mapping *m = &p->maps[i];

		if (m->kind != FK_MAP_ANON && m->perms[2] == 'x')
			e->mapsel[i] = 1;
		if (e->mapsel[i]) {
			n++;
			if (first == SIZE_MAX && m->kind == FK_MAP_FILE &&
			    (!p->binary || strcmp(p->binary, m->path) == 0))
				first = i;
		}
	}
	e->maps = fk_arena_alloc(e->a, (n ? n : 1) * sizeof *e->maps);
	if (!e->maps)
		return oom(e);
	for (i = 0; i < p->nmaps + 1; i++) {
		/* Pass 0 is the main binary, then the others in address order. */
		size_t mi = i == 0 ? first : i - 1;
		const struct fk_mapping *m;
		Perftools__Profiles__Mapping *o;

		if (mi == SIZE_MAX || !e->mapsel[mi] || (i > 0 && mi == first))
			continue;
		m = &p->maps[mi];
		o = &e->maps[e->nmapsout];
		*o = init;
		o->id = ++e->nmapsout;
		o->memory_start = m->start;
		o->memory_limit = m->limit;
		o->file_offset = m->offset;
		if ((o->filename = str_ix(e, m->path)) < 0 ||
		    (o->build_id = str_ix(e, build_id(e, m))) < 0)
			return -1;
		e->mapid[mi] = (uint32_t)o->id;
	}
	for (i = 0; i < e->nlocs; i++) {
		const struct locb *b = &e->lb[i];
		Perftools__Profiles__Mapping *o;
		uint32_t j;

		if (!b->map || !b->sym)
			continue;
		o = &e->maps[e->mapid[b->map - 1] - 1];
		/* pprof re-symbolizes a mapping only when no flag is set, and
		 * sets them when any frame had the information (pprof
		 * internal/symbolizer): so do we. */
		o->has_functions = 1;
		if (b->sym->nframes > 1)
			o->has_inline_frames = 1;
		for (j = 0; j < b->sym->nframes; j++) {
			const struct fk_frame *f = &b->sym->frames[j];

			if (f->file && *f->file)
				o->has_filenames = 1;
			if (f->line)
				o->has_line_numbers = o->has_inline_frames = 1;
		}
	}
	return 0;
}

/* Keeps at most o->max_samples samples (pprof_limit.c), then drops the
 * locations no sample uses any more and renumbers the rest densely in
 * first-use order, as add_stacks numbered them. */
static int limit(struct enc *e)
{
	size_t wix = e->accum ? (e->o->default_alloc ? 1 : 3) : 1;
	uint32_t *newid;
	struct locb *lb;
	size_t n = 0;

	if (fk_enc_limit_samples(&e->smps, &e->nsmps, e->o->max_samples, wix, e->a,
				 e->o->memo ? e->o->memo->limit : NULL, &e->merged) < 0)
		return oom(e);
	e->capsmps = e->nsmps;
	if (!e->merged)
		return 0;
	newid = calloc(e->nlocs + 1, sizeof *newid);
	lb = malloc((e->nlocs ? e->nlocs : 1) * sizeof *lb);
	if (!newid || !lb) {
		free(newid);
		free(lb);
		return oom(e);
	}
	for (size_t i = 0; i < e->nsmps; i++) {
		Smp *s = &e->smps[i];
		uint64_t *ids = fk_arena_alloc(e->a, (s->n_location_id ? s->n_location_id : 1) *
					       sizeof *ids);

		if (!ids) {
			free(newid);
			free(lb);
			return oom(e);
		}
		for (size_t j = 0; j < s->n_location_id; j++) {
			uint64_t old = s->location_id[j];

			if (!newid[old]) {
				lb[n] = e->lb[old - 1];
				newid[old] = (uint32_t)++n;
			}
			ids[j] = newid[old];
		}
		s->location_id = ids;
	}
	/* The same-address chains are not used after the walk. */
	free(e->lb);
	free(newid);
	e->lb = lb;
	e->nlocs = n;
	e->caplocs = e->nlocs ? e->nlocs : 1;
	return 0;
}

static Perftools__Profiles__ValueType *vtype(struct enc *e, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType *v = fk_arena_alloc(e->a, sizeof *v);
	Perftools__Profiles__ValueType init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;

	if (!v)
		return oom(e), NULL;
	*v = init;
	if ((v->type = str_ix(e, type)) < 0 || (v->unit = str_ix(e, unit)) < 0)
		return NULL;
	return v;
}

static void *ptr_array(struct enc *e, void *base, size_t n, size_t elem)
{
	void **arr = fk_arena_alloc(e->a, (n ? n : 1) * sizeof *arr);
	size_t i;

	if (!arr)
		return oom(e), NULL;
	for (i = 0; i < n; i++)
		arr[i] = (char *)base + i * elem;
	return arr;
}

static int build(struct enc *e, Perftools__Profiles__Profile *msg)
{
	char rx[2048];
	const struct fk_profile *p = e->p;
	Perftools__Profiles__ValueType *st[4];
	size_t nst = 0;
	char comment[4][512];

	/* The string table starts with "", as pprof requires. */
	if (grow((void **)&e->strs, &e->capstrs, 0, sizeof *e->strs) < 0)
		return oom(e);
	e->strs[0].data = (uint8_t *)(uintptr_t)"";
	e->strs[0].len = 0;
	e->nstrs = 1;
	if (e->accum) {
		if (!(st[nst++] = vtype(e, "alloc_objects", "count")) ||
		    !(st[nst++] = vtype(e, "alloc_space", "bytes")))
			return -1;
	}
	if (!(st[nst++] = vtype(e, "inuse_objects", "count")) ||
	    !(st[nst++] = vtype(e, "inuse_space", "bytes")))
		return -1;
	msg->n_sample_type = nst;
	msg->sample_type = fk_arena_alloc(e->a, sizeof st);
	if (!msg->sample_type)
		return oom(e);
	memcpy(msg->sample_type, st, sizeof st);
	if (!(msg->period_type = vtype(e, "space", "bytes")))
		return -1;
	msg->period = p->period > INT64_MAX ? INT64_MAX : (int64_t)p->period;
	if ((msg->default_sample_type = str_ix(e, e->accum && e->o->default_alloc ?
					       "alloc_space" : "inuse_space")) < 0)
		return -1;

	e->mapsel = calloc(p->nmaps + 1, 1);
	e->mapid = calloc(p->nmaps + 1, sizeof *e->mapid);
	if (!e->mapsel || !e->mapid)
		return oom(e);
	if (add_stacks(e) < 0 || limit(e) < 0 || add_mappings(e) < 0 ||
	    make_locations(e) < 0)
		return -1;
	if (p->allocator_frames_kept) {
		/* Strings are kept by pointer: the regex goes to the arena. */
		char *keep;

		if (fk_alloc_regex(rx, sizeof rx) < 0 ||
		    !(keep = fk_arena_strndup(e->a, rx, strlen(rx))))
			return oom(e);
		if ((msg->drop_frames = str_ix(e, keep)) < 0)
			return -1;
	}
	msg->time_nanos = e->o->time_nanos;
	msg->duration_nanos = e->o->duration_nanos;

	int nc = 2;
	snprintf(comment[0], sizeof comment[0], "flamekit %s", FK_VERSION);
	snprintf(comment[1], sizeof comment[1], "source: %s",
		 e->o->source ? e->o->source : p->source ? p->source : "-");
	if (e->merged)
		snprintf(comment[nc++], sizeof comment[0], "max_samples %zu: the %zu "
			 "lightest stacks merged into common prefixes, totals kept",
			 e->o->max_samples, e->merged);
	if (e->o->note)
		snprintf(comment[nc++], sizeof comment[0], "%s", e->o->note);
	msg->n_comment = (size_t)nc;
	msg->comment = fk_arena_alloc(e->a, (size_t)nc * sizeof *msg->comment);
	if (!msg->comment)
		return oom(e);
	{
		/* Comments are not interned anywhere else: copy into the arena. */
		int k;

		for (k = 0; k < nc; k++) {
			char *c = fk_arena_strndup(e->a, comment[k], strlen(comment[k]));

			if (!c || (msg->comment[k] = str_ix(e, c)) < 0)
				return c ? -1 : oom(e);
		}
	}

	msg->n_sample = e->nsmps;
	msg->sample = ptr_array(e, e->smps, e->nsmps, sizeof *e->smps);
	msg->n_location = e->nlocs;
	msg->location = ptr_array(e, e->locs, e->nlocs, sizeof *e->locs);
	msg->n_function = e->nfuns;
	msg->function = ptr_array(e, e->funs, e->nfuns, sizeof *e->funs);
	msg->n_mapping = e->nmapsout;
	msg->mapping = ptr_array(e, e->maps, e->nmapsout, sizeof *e->maps);
	if (!msg->sample || !msg->location || !msg->function || !msg->mapping)
		return -1;
	msg->n_string_table = e->nstrs;
	msg->string_table = e->strs;
	return 0;
}

static void enc_release(struct enc *e)
{
	fk_arena_free(e->a);
	free(e->strs);
	fk_u64map_release(&e->strptr);
	fk_u64map_release(&e->strhash);
	free(e->lb);
	free(e->locs);
	fk_u64map_release(&e->locaddr);
	fk_u64map_release(&e->lockey);
	free(e->memo);
	free(e->funs);
	free(e->funkey);
	free(e->funnext);
	fk_u64map_release(&e->funhash);
	free(e->mapid);
	free(e->mapsel);
	free(e->smps);
	fk_enc_rounders_release(&e->rs);
}

int fk_enc_pprof_pack(const struct fk_profile *p, const struct fk_pprof_opts *o,
		unsigned char **plain, size_t *plainlen, struct fk_err *err)
{
	static const struct fk_pprof_opts defaults;
	struct enc e;
	Perftools__Profiles__Profile msg = PERFTOOLS__PROFILES__PROFILE__INIT;
	size_t n;

	memset(&e, 0, sizeof e);
	e.p = p;
	e.o = o ? o : &defaults;
	e.err = err;
	e.accum = p->has_accum || e.o->accum;
	fk_u64map_init(&e.strptr);
	fk_u64map_init(&e.strhash);
	fk_u64map_init(&e.locaddr);
	fk_u64map_init(&e.lockey);
	fk_u64map_init(&e.funhash);
	fk_enc_rounders_init(&e.rs, 4);
	e.a = fk_arena_new();
	if (!e.a) {
		enc_release(&e);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	if (build(&e, &msg) < 0) {
		enc_release(&e);
		return -1;
	}
	n = perftools__profiles__profile__get_packed_size(&msg);
	*plain = malloc(n ? n : 1);
	if (!*plain) {
		enc_release(&e);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	perftools__profiles__profile__pack(&msg, *plain);
	enc_release(&e);
	*plainlen = n;
	return 0;
}
