/* SPDX-License-Identifier: MIT */
/* The waste estimate written out (waste_enc.h): JSON with each class's
 * waste and its sites, every blamed site with its stack, the pages with
 * the settings that govern them and what releases them, and RSS's parts;
 * or folded stacks of the sites' waste. */
#include "waste_enc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode_int.h"
#include "folded_enc.h"

/* Sites listed under each class. */
#define CLASS_SITES 10

/* ,"key":N or ,"key":null for an unknown (negative) figure. */
static void put_i64(FILE *f, const char *key, int64_t v)
{
	if (v >= 0 && v != FK_JESTATS_NONE)
		fprintf(f, ",\"%s\":%" PRId64, key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

static void put_bool(FILE *f, const char *key, int64_t v)
{
	fprintf(f, ",\"%s\":%s", key, v == FK_JESTATS_NONE ? "null" : v ? "true" : "false");
}

/* A site: its stack, leaf function, class and figures. */
static void put_site(FILE *f, const struct fk_profile *p, const struct fk_jestats *st,
		     const struct fk_waste_site *s)
{
	const char *leaf;

	fputs("{\"stack\":", f);
	fk_enc_json_stack(f, p, &p->stacks[s->stack], &leaf);
	fputs(",\"function\":", f);
	fk_enc_json_str(f, leaf);
	if (s->bin == FK_WASTE_LARGE)
		fputs(",\"class\":\"large\"", f);
	else
		fprintf(f, ",\"class\":%" PRIu64, st->bins[s->bin].size);
	fprintf(f, ",\"size_from\":\"%s\",\"waste\":%.0f,\"live_bytes\":%.0f,"
		"\"live_objects\":%.0f,\"freed_objects\":%.0f}", s->by_record ? "record" : "mean",
		s->waste, s->live_bytes, s->live_objs, s->freed_objs);
}

/* Sites by waste, then bytes in use, then stack. */
static int by_waste(const void *a, const void *b)
{
	const struct fk_waste_site *x = *(const struct fk_waste_site *const *)a;
	const struct fk_waste_site *y = *(const struct fk_waste_site *const *)b;

	if (x->waste != y->waste)
		return x->waste > y->waste ? -1 : 1;
	if (x->live_bytes != y->live_bytes)
		return x->live_bytes > y->live_bytes ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The pages: what each holds, the setting that governs it, and what
 * releases it, as numbers where jemalloc gives them. */
static void put_pages(FILE *f, const struct fk_waste *w, const struct fk_jestats *st)
{
	int bg = st->bg_threads > 0;
	/* Figures unknown without statistics (config.stats false): null. */
	int64_t no = FK_JESTATS_NONE;

	fputs(",\"pages\":[{\"kind\":\"dirty\"", f);
	put_i64(f, "bytes", w->part[FK_PART_DIRTY]);
	fputs(",\"resident\":true,\"setting\":\"dirty_decay_ms\"", f);
	put_i64(f, "decay_ms", st->dirty_decay_ms);
	put_i64(f, "background_threads", st->bg_threads);
	fprintf(f, ",\"released\":\"%s\",\"release_now\":\"mallctl arena.4096.purge\"}",
		st->dirty_decay_ms == 0 ? "at once" : st->dirty_decay_ms < 0 ? "never (decay off)"
		: bg ? "within decay_ms, by the background threads"
		: "within decay_ms, on the arena's next allocation or free (no background thread)");
	fputs(",{\"kind\":\"muzzy\"", f);
	put_i64(f, "bytes", w->part[FK_PART_MUZZY]);
	fputs(",\"resident\":\"until the kernel reclaims it (MADV_FREE)\","
	      "\"setting\":\"muzzy_decay_ms\"", f);
	put_i64(f, "decay_ms", st->muzzy_decay_ms);
	put_i64(f, "background_threads", st->bg_threads);
	fputs(",\"release_now\":\"mallctl arena.4096.purge\"}", f);
	fputs(",{\"kind\":\"retained\"", f);
	put_i64(f, "bytes", st->stats ? (int64_t)st->retained : no);
	fputs(",\"resident\":false,\"setting\":\"retain\"", f);
	put_bool(f, "value", st->retain);
	fputs(",\"released\":\"address space only, never in RSS; retain:false unmaps it\"}", f);
	fputs(",{\"kind\":\"metadata\"", f);
	put_i64(f, "bytes", st->stats ? (int64_t)st->metadata : no);
	put_i64(f, "resident_bytes", w->part[FK_PART_METADATA]);
	fputs(",\"setting\":null,\"released\":\"with the arenas and extents it describes\"}", f);
	fputs(",{\"kind\":\"tcache\"", f);
	put_i64(f, "bytes", st->stats ? (int64_t)st->tcache_bytes : no);
	fputs(",\"resident\":true,\"setting\":\"tcache_max\"", f);
	put_i64(f, "value", st->tcache_max);
	fputs(",\"release_now\":\"mallctl thread.tcache.flush in each thread, or its exit\"}]", f);
}

int fk_waste_json_write(const struct fk_profile *p, const struct fk_waste *w,
			const struct fk_jestats *st, FILE *out, struct fk_err *err)
{
	const struct fk_waste_site **order = NULL;
	size_t *rank = NULL, n = 0;

	if (w->nsites && (!(order = calloc(w->nsites, sizeof *order)) ||
			  !(rank = calloc(w->nsites, sizeof *rank)))) {
		free(order);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < w->nsites; i++)
		order[i] = &w->sites[i];
	qsort(order, w->nsites, sizeof *order, by_waste);
	for (size_t i = 0; i < w->nsites; i++)
		rank[order[i] - w->sites] = i;
	fputs("{\"jemalloc\":", out);
	fk_enc_json_str(out, st->version);
	fprintf(out, ",\"page\":%" PRIu64 ",\"attribution\":%s,\"notes\":[", st->page,
		w->from_accum ? "\"accumulated counts\"" : "null");
	for (int i = 0; i < 3; i++)
		if (w->note[i][0]) {
			fputs(n++ ? "," : "", out);
			fk_enc_json_str(out, w->note[i]);
		}
	fputs("],\"parts\":{", out);
	for (int i = 0; i < FK_WASTE_NPARTS; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", fk_waste_part_name(i));
		if (w->part[i] >= 0 || (i == FK_PART_OTHER && w->part[FK_PART_FILES] >= 0))
			fprintf(out, "%" PRId64, w->part[i]);
		else
			fputs("null", out);
	}
	fprintf(out, "},\"sizes\":{\"records\":%" PRIu64 ",\"matched\":%" PRIu64 "}",
		w->records, w->matched);
	fprintf(out, ",\"not_resident\":{\"rtree\":{\"leaves\":%" PRIu64 ",\"counted\":%" PRIu64
		",\"resident\":%" PRIu64 ",\"leaves_from\":%s},\"sampled\":{\"objects\":%.0f,"
		"\"untouched\":%.0f}", w->rtree.leaves, w->rtree.counted, w->rtree.resident,
		!w->rtree.counted ? "null" : w->rtree.from_maps ? "\"mappings\""
		: "\"stats.metadata_rtree\"", w->samples, w->sampled_untouched);
	if (st->have_bins)
		fprintf(out, "},\"small\":{\"waste\":%" PRIu64 ",\"attributed\":%" PRIu64
			",\"unattributed\":%" PRIu64 ",\"slab_tails\":%" PRIu64 "},\"classes\":[",
			w->holes, w->attributed,
			w->holes > w->attributed ? w->holes - w->attributed : 0, w->tails);
	else
		fputs("},\"small\":{\"waste\":null,\"attributed\":null,\"unattributed\":null,"
		      "\"slab_tails\":null},\"classes\":[", out);
	for (size_t c = 0; c < w->nclasses; c++) {
		const struct fk_waste_class *k = &w->classes[c];
		const struct fk_jestats_bin *b = &st->bins[k->bin];
		size_t shown = 0;

		fprintf(out, "%s{\"bin\":%zu,\"size\":%" PRIu64 ",\"nregs\":%" PRIu64
			",\"slab_size\":%" PRIu64 ",\"slabs\":%" PRIu64 ",\"nonfull_slabs\":%" PRIu64
			",\"regions\":%" PRIu64 ",\"waste\":%" PRIu64 ",\"slab_tail\":%" PRIu64
			",\"attributed\":%.0f,\"sites\":[", c ? "," : "", k->bin, b->size, b->nregs,
			b->slab_size, b->curslabs, b->nonfull_slabs, b->curregs, k->waste, k->tail,
			k->attributed);
		for (size_t i = k->first; i < w->nsites && w->sites[i].bin == (int)k->bin &&
		     shown < CLASS_SITES; i++)
			fprintf(out, "%s%zu", shown++ ? "," : "", rank[i]);
		fputs("]}", out);
	}
	if (st->have_bins)
		fprintf(out, "],\"large\":{\"extents\":%" PRIu64 ",\"pad\":%" PRIu64,
			w->large_extents, w->large_pad);
	else
		fputs("],\"large\":{\"extents\":null,\"pad\":null", out);
	fprintf(out, ",\"pad_per_extent\":%s,\"rounding\":null}",
		st->cache_oblivious == 1 ? "\"a page (cache_oblivious)\"" : "0");
	put_pages(out, w, st);
	fputs(",\"sites\":[", out);
	for (size_t i = 0; i < w->nsites; i++) {
		fputs(i ? "," : "", out);
		put_site(out, p, st, order[i]);
	}
	fputs("]}\n", out);
	free(order);
	free(rank);
	if (ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error");
	return 0;
}

int fk_waste_write(struct fk_profile *p, const struct fk_waste *w,
		   const struct fk_jestats *st, const char *fmt, FILE *out,
		   struct fk_err *err)
{
	if (strcmp(fmt, "json") == 0)
		return fk_waste_json_write(p, w, st, out, err);
	if (strcmp(fmt, "folded") != 0 || !p)
		return fk_err_set(err, FK_EUNSUPP, 0, "no such format '%s'", fmt);
	fk_waste_apply(p, w);
	return fk_folded_write(p, NULL, out, err);
}
