/* SPDX-License-Identifier: MIT */
/* A profile.proto message made from what a legacy reader found (sample
 * types, samples with addresses, Java's names, the memory map) and packed:
 * the bytes go to fk_pprof_read like those of any other profile, so a
 * legacy profile meets exactly the checks a protobuf one does. Ids as
 * google/pprof's legacy parsers give them: one location per distinct
 * address, in first-seen order. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "limits.h"
#include "maps.h"
#include "profile.h"
#include "strtab.h"

typedef Perftools__Profiles__Profile Prof;
typedef Perftools__Profiles__ValueType VT;
typedef Perftools__Profiles__Sample Smp;
typedef Perftools__Profiles__Location Loc;
typedef Perftools__Profiles__Function Fun;
typedef Perftools__Profiles__Mapping Map;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Label Lab;

struct fk_lb {
	struct fk_arena *a;
	ProtobufCBinaryData *strs;
	size_t nstrs, capstrs;
	struct fk_u64map strix;        /* hash -> index of the first such string */

	VT **types;
	size_t ntypes, captypes;
	VT period_type;
	int64_t period, duration;
	int has_period;

	Smp **smps;
	uint64_t **addrs;              /* per sample, its addresses (rewritable) */
	size_t nsmps, capsmps, capaddrs;
	int located;                   /* the samples' locations are made */

	Loc **locs;
	size_t nlocs, caplocs;
	struct fk_u64map locix;        /* address -> location index */

	Fun **funs;
	size_t nfuns, capfuns;
	struct fk_u64map funix;        /* name string index -> function index */

	Map **maps;
	size_t nmaps, capmaps;
};

static int oom(struct fk_err *err)
{
	return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
}

struct fk_lb *fk_lb_new(void)
{
	struct fk_lb *b = calloc(1, sizeof *b);

	if (!b)
		return NULL;
	b->a = fk_arena_new();
	if (!b->a) {
		free(b);
		return NULL;
	}
	fk_u64map_init(&b->strix);
	fk_u64map_init(&b->locix);
	fk_u64map_init(&b->funix);
	return b;
}

void fk_lb_free(struct fk_lb *b)
{
	if (!b)
		return;
	free(b->strs);
	free(b->types);
	free(b->smps);
	free(b->addrs);
	free(b->locs);
	free(b->funs);
	free(b->maps);
	fk_u64map_release(&b->strix);
	fk_u64map_release(&b->locix);
	fk_u64map_release(&b->funix);
	fk_arena_free(b->a);
	free(b);
}

/* The string table index of s[0..n), added when new; -1 when out of memory. */
static int64_t str(struct fk_lb *b, const char *s, size_t n)
{
	uint64_t h = fk_hash(s, n);
	uint32_t ix = fk_u64map_get(&b->strix, h);
	void *grown;
	char *copy;
	size_t i;

	if (b->nstrs == 0) {
		grown = fk_grow(b->strs, &b->capstrs, 0, sizeof *b->strs, 64);
		if (!grown)
			return -1;
		b->strs = grown;
		b->strs[0].data = (uint8_t *)"";
		b->strs[0].len = 0;
		b->nstrs = 1;
	}
	if (n == 0)
		return 0;
	if (ix != UINT32_MAX) {
		if (b->strs[ix].len == n && memcmp(b->strs[ix].data, s, n) == 0)
			return ix;
		/* A collision of hashes: rare, so a scan. */
		for (i = 1; i < b->nstrs; i++)
			if (b->strs[i].len == n && memcmp(b->strs[i].data, s, n) == 0)
				return (int64_t)i;
	}
	if (b->nstrs >= UINT32_MAX - 1)
		return -1;
	grown = fk_grow(b->strs, &b->capstrs, b->nstrs, sizeof *b->strs, 64);
	copy = fk_arena_strndup(b->a, s, n);
	if (!grown || !copy)
		return -1;
	b->strs = grown;
	b->strs[b->nstrs].data = (uint8_t *)copy;
	b->strs[b->nstrs].len = n;
	if (ix == UINT32_MAX && fk_u64map_put(&b->strix, h, (uint32_t)b->nstrs) < 0)
		return -1;
	return (int64_t)b->nstrs++;
}

static int64_t cstr(struct fk_lb *b, const char *s)
{
	return str(b, s, strlen(s));
}

int fk_lb_type(struct fk_lb *b, const char *name, const char *unit, struct fk_err *err)
{
	VT *t = fk_arena_alloc(b->a, sizeof *t);
	void *grown = fk_grow(b->types, &b->captypes, b->ntypes, sizeof *b->types, 4);

	if (!t || !grown)
		return oom(err);
	b->types = grown;
	perftools__profiles__value_type__init(t);
	t->type = cstr(b, name);
	t->unit = cstr(b, unit);
	if (t->type < 0 || t->unit < 0)
		return oom(err);
	b->types[b->ntypes++] = t;
	return 0;
}

int fk_lb_period(struct fk_lb *b, const char *type, const char *unit, int64_t period,
		 int64_t duration_nanos, struct fk_err *err)
{
	perftools__profiles__value_type__init(&b->period_type);
	b->period_type.type = cstr(b, type);
	b->period_type.unit = cstr(b, unit);
	if (b->period_type.type < 0 || b->period_type.unit < 0)
		return oom(err);
	b->period = period;
	b->duration = duration_nanos;
	b->has_period = 1;
	return 0;
}

/* The index of the location of addr, made when new; -1 when out of memory. */
static long loc_of(struct fk_lb *b, uint64_t addr)
{
	uint32_t ix = fk_u64map_get(&b->locix, addr);
	Loc *l;
	void *grown;

	if (ix != UINT32_MAX)
		return ix;
	if (b->nlocs >= UINT32_MAX - 1)
		return -1;
	grown = fk_grow(b->locs, &b->caplocs, b->nlocs, sizeof *b->locs, 64);
	l = fk_arena_alloc(b->a, sizeof *l);
	if (!grown || !l)
		return -1;
	b->locs = grown;
	perftools__profiles__location__init(l);
	l->id = b->nlocs + 1;
	l->address = addr;
	if (fk_u64map_put(&b->locix, addr, (uint32_t)b->nlocs) < 0)
		return -1;
	b->locs[b->nlocs] = l;
	return (long)b->nlocs++;
}

int fk_lb_sample(struct fk_lb *b, const int64_t *values, const uint64_t *addrs, size_t n,
		 int64_t bytes, uint64_t line, struct fk_err *err)
{
	Smp *s;
	void *g1, *g2;

	if (n > FK_MAX_DEPTH_ANY)
		return fk_err_set(err, FK_ELIMIT, line, "stack deeper than %d frames",
				  FK_MAX_DEPTH_ANY);
	if (b->nsmps == FK_MAX_STACKS)
		return fk_err_set(err, FK_ELIMIT, line, "more than %d samples", FK_MAX_STACKS);
	g1 = fk_grow(b->smps, &b->capsmps, b->nsmps, sizeof *b->smps, 256);
	if (!g1)
		return oom(err);
	b->smps = g1;
	g2 = fk_grow(b->addrs, &b->capaddrs, b->nsmps, sizeof *b->addrs, 256);
	if (!g2)
		return oom(err);
	b->addrs = g2;
	s = fk_arena_alloc(b->a, sizeof *s);
	if (!s)
		return oom(err);
	perftools__profiles__sample__init(s);
	s->n_value = b->ntypes;
	s->value = fk_arena_alloc(b->a, (b->ntypes ? b->ntypes : 1) * sizeof *s->value);
	b->addrs[b->nsmps] = fk_arena_alloc(b->a, (n ? n : 1) * sizeof *addrs);
	if (!s->value || !b->addrs[b->nsmps])
		return oom(err);
	memcpy(s->value, values, b->ntypes * sizeof *s->value);
	if (n)
		memcpy(b->addrs[b->nsmps], addrs, n * sizeof *addrs);
	s->n_location_id = n;
	if (bytes >= 0) {
		Lab *l = fk_arena_alloc(b->a, sizeof *l);

		s->label = fk_arena_alloc(b->a, sizeof *s->label);
		if (!l || !s->label)
			return oom(err);
		perftools__profiles__label__init(l);
		l->key = cstr(b, "bytes");
		l->num = bytes;
		if (l->key < 0)
			return oom(err);
		s->label[0] = l;
		s->n_label = 1;
	}
	b->smps[b->nsmps++] = s;
	return 0;
}

size_t fk_lb_nsamples(const struct fk_lb *b)
{
	return b->nsmps;
}

int64_t *fk_lb_values(struct fk_lb *b, size_t i)
{
	return b->smps[i]->value;
}

uint64_t *fk_lb_addrs(struct fk_lb *b, size_t i, size_t *n)
{
	*n = b->smps[i]->n_location_id;
	return b->addrs[i];
}

void fk_lb_set_depth(struct fk_lb *b, size_t i, size_t n)
{
	if (n <= b->smps[i]->n_location_id)
		b->smps[i]->n_location_id = n;
}

/* Makes the locations of every sample's addresses (after the readers had
 * their say on the addresses); -1 when out of memory. */
static int make_locations(struct fk_lb *b)
{
	size_t i, j;

	if (b->located)
		return 0;
	b->located = 1;
	for (i = 0; i < b->nsmps; i++) {
		Smp *s = b->smps[i];

		s->location_id = fk_arena_alloc(b->a, (s->n_location_id ? s->n_location_id : 1) *
						sizeof *s->location_id);
		if (!s->location_id)
			return -1;
		for (j = 0; j < s->n_location_id; j++) {
			long ix = loc_of(b, b->addrs[i][j]);

			if (ix < 0)
				return -1;
			s->location_id[j] = (uint64_t)ix + 1;
		}
	}
	return 0;
}

int fk_lb_name(struct fk_lb *b, uint64_t addr, const char *name, size_t nlen,
	       const char *file, size_t flen, int64_t line, struct fk_err *err)
{
	uint32_t ix;
	int64_t ni, fi;
	Loc *l;
	Line *ln;
	void *grown;

	if (make_locations(b) < 0)
		return oom(err);
	ix = fk_u64map_get(&b->locix, addr);
	if (ix == UINT32_MAX)
		return 0;              /* no sample has it: pprof ignores it too */
	l = b->locs[ix];
	ni = str(b, name, nlen);
	fi = str(b, file, flen);
	if (ni < 0 || fi < 0)
		return oom(err);
	ix = fk_u64map_get(&b->funix, (uint64_t)ni);
	if (ix == UINT32_MAX) {
		Fun *f = fk_arena_alloc(b->a, sizeof *f);

		grown = fk_grow(b->funs, &b->capfuns, b->nfuns, sizeof *b->funs, 64);
		if (!f || !grown)
			return oom(err);
		b->funs = grown;
		perftools__profiles__function__init(f);
		f->id = b->nfuns + 1;
		f->name = ni;
		f->system_name = ni;
		f->filename = fi;
		if (fk_u64map_put(&b->funix, (uint64_t)ni, (uint32_t)b->nfuns) < 0)
			return oom(err);
		ix = (uint32_t)b->nfuns;
		b->funs[b->nfuns++] = f;
	}
	ln = fk_arena_alloc(b->a, sizeof *ln);
	l->line = fk_arena_alloc(b->a, sizeof *l->line);
	if (!ln || !l->line)
		return oom(err);
	perftools__profiles__line__init(ln);
	ln->function_id = b->funs[ix]->id;
	ln->line = line;
	l->line[0] = ln;
	l->n_line = 1;
	l->address = 0;
	return 0;
}

int fk_lb_maps(struct fk_lb *b, const char *s, size_t n, uint64_t first_line,
	       struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("maps");
	size_t i;
	int rc = -1;

	if (!p)
		return oom(err);
	if (fk_maps_parse_pprof(p, s, n, first_line, err) < 0)
		goto out;
	for (i = 0; i < p->nmaps; i++) {
		const struct fk_mapping *m = &p->maps[i];
		Map *o;
		void *grown;

		if (m->perms[2] != 'x')
			continue;      /* pprof keeps executable mappings only */
		o = fk_arena_alloc(b->a, sizeof *o);
		grown = fk_grow(b->maps, &b->capmaps, b->nmaps, sizeof *b->maps, 16);
		if (!o || !grown) {
			oom(err);
			goto out;
		}
		b->maps = grown;
		perftools__profiles__mapping__init(o);
		o->id = b->nmaps + 1;
		o->memory_start = m->start;
		o->memory_limit = m->limit;
		o->file_offset = m->offset;
		o->filename = cstr(b, m->path);
		if (o->filename < 0) {
			oom(err);
			goto out;
		}
		b->maps[b->nmaps++] = o;
	}
	rc = 0;
out:
	fk_profile_free(p);
	return rc;
}

int fk_lb_finish(struct fk_lb *b, uint8_t **out, size_t *outlen, struct fk_err *err)
{
	Prof m;
	uint8_t *buf;
	size_t n, i, j;

	*out = NULL;
	if (str(b, "", 0) < 0 || make_locations(b) < 0)
		return oom(err);
	for (i = 0; i < b->nlocs; i++) {
		Loc *l = b->locs[i];

		if (!l->address)
			continue;
		for (j = 0; j < b->nmaps; j++)
			if (b->maps[j]->memory_start <= l->address &&
			    l->address < b->maps[j]->memory_limit) {
				l->mapping_id = b->maps[j]->id;
				break;
			}
	}
	perftools__profiles__profile__init(&m);
	m.n_sample_type = b->ntypes;
	m.sample_type = b->types;
	m.n_sample = b->nsmps;
	m.sample = b->smps;
	m.n_location = b->nlocs;
	m.location = b->locs;
	m.n_function = b->nfuns;
	m.function = b->funs;
	m.n_mapping = b->nmaps;
	m.mapping = b->maps;
	m.n_string_table = b->nstrs;
	m.string_table = b->strs;
	if (b->has_period) {
		m.period_type = &b->period_type;
		m.period = b->period;
		m.duration_nanos = b->duration;
	}
	n = perftools__profiles__profile__get_packed_size(&m);
	buf = malloc(n ? n : 1);
	if (!buf)
		return oom(err);
	perftools__profiles__profile__pack(&m, buf);
	*out = buf;
	*outlen = n;
	return 0;
}
