/* SPDX-License-Identifier: MIT */
/* pprof -> folded stacks: one sample type of a decoded pprof profile as
 * "root;...;leaf VALUE" lines, inline frames expanded, for render-flame. */
#include "pprof_dec.h"
#include "encode_int.h"

#include <stdint.h>
#include <string.h>

#include "limits.h"

/* The name of line j of location l: its function's name, else its
 * system name, else the location's address name. */
static const char *line_name(const struct fk_pprof *pp,
			     const Perftools__Profiles__Line *ln)
{
	const Perftools__Profiles__Function *f =
		pp->msg->function[fk_u64map_get(&pp->funix, ln->function_id)];

	if (f->name)
		return pp->strs[f->name];
	if (f->system_name)
		return pp->strs[f->system_name];
	return NULL;
}

static const char *addr_name(const struct fk_pprof *pp,
			     const Perftools__Profiles__Location *l,
			     char *buf, size_t size)
{
	const Perftools__Profiles__Mapping *m;

	if (!l->mapping_id)
		return fk_enc_addr_name(buf, size, NULL, 0, 0, l->address);
	m = pp->msg->mapping[fk_u64map_get(&pp->mapix, l->mapping_id)];
	return fk_enc_addr_name(buf, size, pp->strs[m->filename], m->memory_start,
				m->file_offset, l->address);
}

/* Location id, as the name cache reads it (struct fk_namesrc): its
 * lines, line[0] innermost, or its address name. */
struct loc_src {
	const struct fk_pprof *pp;
	uint64_t id;
	const Perftools__Profiles__Location *l;
};

static size_t loc_open(void *ctx)
{
	struct loc_src *s = ctx;

	s->l = s->pp->msg->location[fk_u64map_get(&s->pp->locix, s->id)];
	return s->l->n_line;
}

static const char *loc_line_name(void *ctx, size_t j)
{
	const struct loc_src *s = ctx;

	return line_name(s->pp, s->l->line[j]);
}

static const char *loc_addr(void *ctx, char *buf, size_t size)
{
	const struct loc_src *s = ctx;

	return addr_name(s->pp, s->l, buf, size);
}

static int add_sample(const struct fk_pprof *pp, struct fk_foldacc *acc,
		      struct fk_namecache *cache, const Perftools__Profiles__Sample *s,
		      int64_t v, int all, struct fk_err *err)
{
	struct loc_src ls = { pp, 0, NULL };
	struct fk_namesrc src = { loc_open, loc_line_name, loc_addr, &ls };
	size_t i;

	fk_foldacc_begin(acc);
	for (i = s->n_location_id; i-- > 0;) {
		const char *text;
		size_t n;

		ls.id = s->location_id[i];
		if (!(text = fk_namecache_text(cache, ls.id, &src, &n)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (fk_foldacc_frames(acc, text, n, err) < 0)
			return -1;
	}
	/* The decoder checked one value per sample type. */
	return all ? fk_foldacc_endv(acc, s->value, err) : fk_foldacc_end(acc, v, err);
}

/* Writes s as a column name: the header's characters only. */
static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(((unsigned)*s | 32) - 'a' < 26 || (unsigned)*s - '0' < 10 ||
		      strchr("_.:-", *s) ? *s : '_', out);
}

int fk_pprof_folded_write(const struct fk_pprof *pp, size_t ti, FILE *out,
			  struct fk_err *err)
{
	struct fk_foldacc *acc = fk_foldacc_new();
	struct fk_namecache cache;
	size_t i;
	int rc = 0;

	size_t nt = fk_pprof_ntypes(pp), k;
	int all = ti == SIZE_MAX;

	if (!acc)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (all && fk_foldacc_columns(acc, nt) < 0) {
		fk_foldacc_free(acc);
		return fk_err_set(err, FK_ELIMIT, 0, "%zu sample types: one to %d can be columns",
				  nt, FK_MAX_COLUMNS);
	}
	fk_namecache_init(&cache);
	for (i = 0; i < pp->msg->n_sample && rc == 0; i++) {
		const Perftools__Profiles__Sample *s = pp->msg->sample[i];
		int any = 0;

		for (k = 0; all && k < s->n_value; k++)
			any |= s->value[k] != 0;
		if (all ? any : ti < s->n_value && s->value[ti] != 0)
			rc = add_sample(pp, acc, &cache, s, all ? 0 : s->value[ti], all, err);
	}
	if (rc == 0 && all) {
		fputs("# columns:", out);
		for (k = 0; k < nt; k++) {
			fputc(' ', out);
			put_name(out, fk_pprof_type_name(pp, k));
			fputc('/', out);
			put_name(out, fk_pprof_type_unit(pp, k));
		}
		fputc('\n', out);
	}
	if (rc == 0)
		rc = fk_foldacc_write(acc, out, err);
	fk_foldacc_free(acc);
	fk_namecache_release(&cache);
	return rc;
}
