/* SPDX-License-Identifier: MIT */
/* A lifetimes view written out: as JSON, per stack (allocation site, or
 * free site for the freed view) its counts, unbiased as a heap profile's,
 * and its lifetime's median, p90 and maximum (man/heap-lifetimes.1,
 * FORMAT); or as a profile, pprof or folded. */
#include "life_enc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode_int.h"
#include "folded_enc.h"
#include "pprof_enc.h"

/* A lifetime in milliseconds, "live", or null. */
static void put_ms(FILE *f, const char *key, double v, int first)
{
	fprintf(f, "%s\"%s\":", first ? "" : ",", key);
	if (v == FK_LIFE_LIVE)
		fputs("\"live\"", f);
	else if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%.3f", v);
}

int fk_life_json_write(const struct fk_profile *p, const struct fk_life_info *info,
		       const struct fk_life_query *q, FILE *out, struct fk_err *err)
{
	fputs("{\"view\":", out);
	fk_enc_json_str(out, fk_life_view_name((int)q->view));
	if (q->view == FK_LIFE_TEMPORARY)
		fprintf(out, ",\"max_ms\":%g", q->max_ms);
	if (q->view == FK_LIFE_OLDEST)
		fprintf(out, ",\"min_s\":%g", q->min_s);
	fprintf(out, ",\"sample_interval\":%" PRIu64 ",\"recent_alloc_max\":%" PRId64
		",\"records\":%" PRIu64 ",\"live\":%" PRIu64 ",\"freed\":%" PRIu64
		",\"span_seconds\":%.3f,\"clock\":\"%s\",\"sites\":[", info->period, info->max,
		info->records, info->live, info->freed, info->span_s,
		info->realtime ? "realtime" : "monotonic");
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct fk_stack *s = &p->stacks[i];
		const struct fk_life_site *st = &info->sites[i];
		struct fk_values v = fk_unbias(p, &s->c);
		const char *leaf;

		fputs(i ? ",{\"stack\":" : "{\"stack\":", out);
		fk_enc_json_stack(out, p, s, &leaf);
		fputs(",\"function\":", out);
		fk_enc_json_str(out, leaf);
		fprintf(out, ",\"count\":%.0f,\"bytes\":%.0f,\"records\":%" PRIu64 ",\"live\":%"
			PRIu64 ",\"freed\":%" PRIu64 ",\"lifetime_ms\":{", v.objs, v.bytes,
			st->records, st->live, st->freed);
		put_ms(out, "median", st->median_ms, 1);
		put_ms(out, "p90", st->p90_ms, 0);
		put_ms(out, "max", st->max_ms, 0);
		fputs("},\"live_age_s\":", out);
		if (st->live) {
			fputc('{', out);
			put_ms(out, "median", st->age_median_s, 1);
			put_ms(out, "max", st->age_max_s, 0);
			fputs("}}", out);
		} else {
			fputs("null}", out);
		}
	}
	fputs("]}\n", out);
	if (ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error");
	return 0;
}

int fk_life_write(struct fk_profile *p, const struct fk_life_info *info,
		  const struct fk_life_query *q, const char *fmt, FILE *out,
		  struct fk_err *err)
{
	if (strcmp(fmt, "json") == 0)
		return fk_life_json_write(p, info, q, out, err);
	if (strcmp(fmt, "pprof") == 0)
		return fk_pprof_write(p, NULL, out, err);
	if (strcmp(fmt, "folded") == 0)
		return fk_folded_write(p, NULL, out, err);
	if (strcmp(fmt, "columns") == 0)
		return fk_life_columns_write(p, info, out, err);
	return fk_err_set(err, FK_EUNSUPP, 0, "no such format '%.20s'", fmt);
}

struct col_ctx {
	const struct fk_life_info *info;
	const struct fk_counts *all;
};

/* Column k's counts into p's stacks: every record's (k 0), or bucket
 * k - 1's. */
static void col_set(void *ctx, uint32_t k, struct fk_profile *p)
{
	const struct col_ctx *c = ctx;

	for (size_t i = 0; i < p->nstacks; i++)
		p->stacks[i].c = k == 0 ? c->all[i] : c->info->sites[i].bucket[k - 1];
}

int fk_life_columns_write(struct fk_profile *p, const struct fk_life_info *info, FILE *out,
			  struct fk_err *err)
{
	struct fk_counts *all = malloc((p->nstacks ? p->nstacks : 1) * sizeof *all);
	struct fk_foldacc *acc = fk_foldacc_new();
	struct col_ctx c = { info, all };
	int rc = -1;

	if (all && acc && fk_foldacc_columns(acc, 1 + FK_LIFE_NBUCKETS) == 0) {
		for (size_t i = 0; i < p->nstacks; i++)
			all[i] = p->stacks[i].c;
		rc = fk_folded_series(p, 1 + FK_LIFE_NBUCKETS, col_set, &c, acc, err);
		for (size_t i = 0; i < p->nstacks; i++)
			p->stacks[i].c = all[i];
		if (rc == 0) {
			/* What the record covers (man/render-flame.1, "Origin"). */
			fprintf(out, "# info: records=%llu\n# info: span_s=%.3f\n",
				(unsigned long long)info->records, info->span_s);
			if (info->period)
				fprintf(out, "# info: sample_period=%llu\n",
					(unsigned long long)info->period);
			fputs("# columns: all/bytes", out);
			for (int b = 0; b < FK_LIFE_NBUCKETS; b++)
				fprintf(out, " %s/bytes", fk_life_bucket_name(b));
			fputc('\n', out);
			rc = fk_foldacc_write(acc, out, err);
		}
	} else {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	fk_foldacc_free(acc);
	free(all);
	return rc;
}
