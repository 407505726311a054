/* SPDX-License-Identifier: MIT */
/* Unit tests of encode/: gzip, the id table, and the pprof encoder read back
 * by the pprof decoder (ids, strings, values, locations, inline lines). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "encode_int.h"
#include "pprof_dec.h"
#include "pprof_enc.h"
#include "symprof.h"
#include "allocframes.h"
#include "t.h"
#include "utf8.h"

/* A symbolized profile: 0x1100 is an inline chain (outer f_outer, inner
 * f_leaf), 0x1200 a plain function, 0x7f00000010 is in anonymous memory,
 * one bare "@" stack, accumulated counts and two threads. */
static const char sym_text[] =
	"--- symbol\n"
	"binary=/opt/t/prog\n"
	"=flamekit 0.1.0 allocator-frames=kept\n"
	"=build-id 00112233\t/opt/t/prog\n"
	"0x0000000000001100 f_outer--f_leaf\n"
	"=sym 0x0000000000001100\tf\tf_outer\t_Z7f_outerv\t/src/a.c\t10\tf_leaf\t\t/src/a.c\t3\n"
	"0x00000000000011ff main\n"
	"=sym 0x00000000000011ff\tf\tmain\t\t/src/a.c\t20\n"
	"---\n"
	"--- heap\n"
	"heap_v2/4096\n"
	"  t*: 3: 192 [5: 320]\n"
	"  t1: 2: 128 [3: 192] main\n"
	"  t2: 1: 64 [2: 128]\n"
	"@ 0x1100 0x1200\n"
	"  t*: 2: 128 [3: 192]\n"
	"  t1: 1: 64 [2: 128]\n"
	"  t2: 1: 64 [1: 64]\n"
	"@ 0x7f00000010 0x1200\n"
	"  t*: 1: 64 [1: 64]\n"
	"  t1: 1: 64 [1: 64]\n"
	"@\n"
	"  t*: 0: 0 [1: 64]\n"
	"  t1: 0: 0 [1: 64]\n"
	"\n"
	"MAPPED_LIBRARIES:\n"
	"00001000-00002000 r-xp 00001000 08:01 12 /opt/t/prog\n"
	"7f00000000-7f00001000 rwxp 00000000 00:00 0 \n";

static struct fk_profile *load(const char *text)
{
	struct fk_profile *p = fk_profile_new("test");
	struct fk_err err;

	fk_err_init(&err, "test");
	if (!p || fk_profile_parse(p, text, strlen(text), &err) < 0) {
		printf("# cannot parse the test profile: %s\n", err.msg);
		exit(1);
	}
	return p;
}

static void test_gzip(void)
{
	char in[10000];
	unsigned char *z, *back, *two;
	size_t zn, bn, i;
	struct fk_err err;

	for (i = 0; i < sizeof in; i++)
		in[i] = (char)("flamekit"[i % 8] + (i / 1000));
	fk_err_init(&err, "gz");
	T_OK(fk_gz_compress(in, sizeof in, 9, &z, &zn, &err) == 0, "gzip compresses");
	T_OK(fk_gz_is_gzip(z, zn), "output has the gzip magic");
	T_OK(z[4] == 0 && z[5] == 0 && z[6] == 0 && z[7] == 0, "gzip mtime is 0");
	T_OK(fk_gz_decompress(z, zn, 1 << 20, &back, &bn, &err) == 0 && bn == sizeof in &&
	     memcmp(back, in, bn) == 0, "gunzip gives the input back");
	free(back);
	T_OK(fk_gz_decompress(z, zn, 100, &back, &bn, &err) < 0 && err.code == FK_ELIMIT,
	     "gunzip stops at the size limit (%s)", err.msg);
	T_OK(fk_gz_decompress(z, zn - 9, 1 << 20, &back, &bn, &err) < 0 && err.code == FK_ESYNTAX,
	     "truncated gzip is an error (%s)", err.msg);
	two = malloc(2 * zn);
	memcpy(two, z, zn);
	memcpy(two + zn, z, zn);
	T_OK(fk_gz_decompress(two, 2 * zn, 1 << 20, &back, &bn, &err) == 0 && bn == 2 * sizeof in &&
	     memcmp(back + sizeof in, in, sizeof in) == 0, "concatenated members are one stream");
	free(back);
	free(two);
	free(z);
}

static void test_u64map(void)
{
	struct fk_u64map m;
	uint64_t k;
	int good = 1;

	fk_u64map_init(&m);
	T_EQ_INT(fk_u64map_get(&m, 5), UINT32_MAX, "empty table has no keys");
	for (k = 0; k < 20000; k++)
		if (fk_u64map_put(&m, k * 4096 + 0x7f0000000000ULL, (uint32_t)k) < 0)
			good = 0;
	for (k = 0; k < 20000; k++)
		if (fk_u64map_get(&m, k * 4096 + 0x7f0000000000ULL) != k)
			good = 0;
	T_OK(good, "20000 address keys stored and found");
	fk_u64map_put(&m, 0x7f0000000000ULL, 77);
	T_EQ_INT(fk_u64map_get(&m, 0x7f0000000000ULL), 77, "put replaces a value");
	T_EQ_INT(fk_u64map_get(&m, 1), UINT32_MAX, "absent key");
	T_EQ_INT(m.n, 20000, "count");
	fk_u64map_release(&m);
}

static void test_rounding(void)
{
	struct fk_enc_rounder r = { 0, 0 };
	int64_t sum = 0;
	int i, ups = 0;

	for (i = 0; i < 100; i++) {
		int64_t v = fk_enc_round_next(&r, 64.5);

		sum += v;
		ups += v == 65;
	}
	T_EQ_INT(sum, 6450, "carried rounding keeps the exact total");
	T_EQ_INT(ups, 50, "half the 64.5s round up, half down");
	T_EQ_INT(fk_enc_round_next(&r, 0), 0, "zero stays zero");
	T_EQ_INT(fk_enc_round(-2.5), -3, "ties away from zero");
	T_EQ_INT(fk_enc_round(NAN), 0, "NaN is 0");
	T_EQ_INT(fk_enc_round(1e300), INT64_MAX, "clamped");
}

static const char *str(const struct fk_pprof *pp, int64_t i)
{
	return pp->strs[i];
}

static void test_encode(void)
{
	struct fk_profile *p = load(sym_text);
	struct fk_pprof_opts o;
	struct fk_pprof *pp;
	struct fk_err err;
	unsigned char *a, *b;
	size_t an, bn, i;
	const Perftools__Profiles__Profile *m;
	int dense = 1;

	memset(&o, 0, sizeof o);
	fk_err_init(&err, "test");
	T_OK(fk_pprof_encode(p, &o, &a, &an, &err) == 0, "encodes (%s)", err.msg);
	T_OK(fk_pprof_encode(p, &o, &b, &bn, &err) == 0 && an == bn && memcmp(a, b, an) == 0,
	     "encoding is deterministic");
	free(b);
	T_OK(fk_pprof_read(a, an, &pp, &err) == 0, "our output passes our validator (%s)", err.msg);
	free(a);
	if (!pp)
		return;
	m = pp->msg;
	T_EQ_STR(str(pp, 0), "", "string_table[0]");
	T_EQ_INT(m->n_sample_type, 4, "four sample types with accumulated counts");
	T_EQ_STR(str(pp, m->sample_type[0]->type), "alloc_objects", "type 0");
	T_EQ_STR(str(pp, m->sample_type[1]->unit), "bytes", "type 1 unit");
	T_EQ_STR(str(pp, m->sample_type[3]->type), "inuse_space", "type 3");
	T_EQ_STR(str(pp, m->default_sample_type), "inuse_space", "default sample type");
	T_EQ_STR(str(pp, m->period_type->type), "space", "period type");
	T_EQ_INT(m->period, 4096, "period");
	char rx[2048];
	T_OK(fk_alloc_regex(rx, sizeof rx) == 0, "allocator regex fits");
	T_EQ_STR(str(pp, m->drop_frames), rx, "drop_frames when allocator frames kept");
	for (i = 1; i < m->n_string_table; i++)
		for (size_t j = i + 1; j < m->n_string_table; j++)
			if (m->string_table[i].len == m->string_table[j].len &&
			    memcmp(m->string_table[i].data, m->string_table[j].data,
				   m->string_table[i].len) == 0)
				dense = 0;
	T_OK(dense, "every string stored once");
	dense = 1;
	for (i = 0; i < m->n_location; i++)
		dense &= m->location[i]->id == i + 1;
	for (i = 0; i < m->n_function; i++)
		dense &= m->function[i]->id == i + 1;
	for (i = 0; i < m->n_mapping; i++)
		dense &= m->mapping[i]->id == i + 1;
	T_OK(dense, "ids are dense from 1");
	T_EQ_INT(m->n_sample, 3, "three samples (the bare @ has allocations)");
	T_EQ_INT(m->n_location, 3, "three locations");
	T_EQ_INT(m->n_function, 3, "three functions");
	T_EQ_INT(m->n_mapping, 1, "one mapping (anonymous memory is none)");
	if (m->n_sample == 3 && m->n_location == 3 && m->n_mapping == 1) {
		const Perftools__Profiles__Location *l0 = m->location[0];
		const Perftools__Profiles__Mapping *mp = m->mapping[0];
		struct fk_values v = fk_unbias(p, &p->stacks[0].c);

		T_EQ_INT(l0->address, 0x1100, "leaf location keeps its address");
		T_EQ_INT(l0->n_line, 2, "inline chain is two lines");
		if (l0->n_line == 2) {
			const Perftools__Profiles__Function *inner =
				m->function[l0->line[0]->function_id - 1];
			const Perftools__Profiles__Function *outer =
				m->function[l0->line[1]->function_id - 1];

			T_EQ_STR(str(pp, inner->name), "f_leaf", "line[0] is the innermost");
			T_EQ_STR(str(pp, outer->name), "f_outer", "line[1] is the caller");
			T_EQ_STR(str(pp, outer->system_name), "_Z7f_outerv", "system name kept");
			T_EQ_STR(str(pp, outer->filename), "/src/a.c", "file name kept");
			T_EQ_INT(l0->line[1]->line, 10, "line number kept");
		}
		T_EQ_INT(m->location[1]->address, 0x1200, "caller keeps its return address");
		T_EQ_INT(m->location[2]->mapping_id, 0, "anonymous address has no mapping");
		T_EQ_INT(m->location[2]->n_line, 0, "unresolved address has no lines");
		T_EQ_INT(mp->memory_start, 0x1000, "mapping start");
		T_EQ_INT(mp->memory_limit, 0x2000, "mapping limit");
		T_EQ_INT(mp->file_offset, 0x1000, "mapping offset");
		T_EQ_STR(str(pp, mp->filename), "/opt/t/prog", "mapping file");
		T_EQ_STR(str(pp, mp->build_id), "00112233", "mapping build-id");
		T_OK(mp->has_functions && mp->has_filenames && mp->has_line_numbers &&
		     mp->has_inline_frames, "symbolized mapping says what it carries");
		T_EQ_INT(m->sample[0]->value[3], llround(v.bytes), "inuse_space is unbiased");
		T_EQ_INT(m->sample[0]->value[2], llround(v.objs), "inuse_objects is unbiased");
		T_EQ_INT(m->sample[2]->n_location_id, 0, "bare @ has no locations");
		T_EQ_INT(m->sample[2]->value[3], 0, "bare @ has no in-use bytes");
	}
	fk_pprof_free(pp);

	o.threads = 1;
	T_OK(fk_pprof_encode(p, &o, &a, &an, &err) == 0 && fk_pprof_read(a, an, &pp, &err) == 0,
	     "encodes per thread");
	free(a);
	if (pp) {
		int labelled = 0;

		T_EQ_INT(pp->msg->n_sample, 4, "one sample per thread line");
		for (i = 0; i < pp->msg->n_sample; i++)
			for (size_t j = 0; j < pp->msg->sample[i]->n_label; j++)
				labelled += strcmp(str(pp, pp->msg->sample[i]->label[j]->key), "thread") == 0;
		T_EQ_INT(labelled, 4, "every sample has a thread label");
		fk_pprof_free(pp);
	}
	fk_profile_free(p);
}

static void test_decode_checks(void)
{
	struct fk_pprof *pp;
	struct fk_err err;
	/* string_table = ["", "x"], sample_type {type 1, unit 5}: index 5 is
	 * out of range. */
	static const unsigned char bad_index[] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x05,
						   0x32, 0x00, 0x32, 0x01, 'x' };
	static const unsigned char good[] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x01,
					      0x32, 0x00, 0x32, 0x01, 'x' };

	fk_err_init(&err, "t");
	T_OK(fk_pprof_read(bad_index, sizeof bad_index, &pp, &err) < 0 &&
	     strstr(err.msg, "string index '5' out of range"), "string index checked (%s)", err.msg);
	T_OK(fk_pprof_read(good, sizeof good, &pp, &err) == 0, "minimal profile accepted");
	if (pp) {
		T_EQ_INT(fk_pprof_ntypes(pp), 1, "one sample type");
		T_EQ_STR(fk_pprof_type_name(pp, 0), "x", "its name");
		T_EQ_INT(fk_pprof_pick_type(pp, NULL, &err), 0, "default is the last type");
		T_OK(fk_pprof_pick_type(pp, "y", &err) < 0, "unknown type refused");
		fk_pprof_free(pp);
	}
	T_OK(fk_pprof_read("", 0, &pp, &err) < 0, "empty input refused");
}

/* A dump of 200 stacks of three frames (a shared root, 7 middles, a leaf
 * each), with accumulated counts, and a leaf whose name is not UTF-8. */
/* 200 stacks of three frames, the heaviest last; shape 1: the same
 * stacks weighed the other way round; shape 2: one stack more. */
static struct fk_profile *many_stacks_as(int shape)
{
	static char text[64 << 10];
	size_t k = 0;

	k += (size_t)snprintf(text + k, sizeof text - k, "--- symbol\nbinary=/p\n"
			      "0x0000000000002000 bad\xff\xfename\n---\n--- heap\nheap_v2/1\n"
			      "  t*: 0: 0 [0: 0]\n");
	for (int i = 0; i < 200 + (shape == 2); i++) {
		int w = shape == 1 ? 200 - i : i + 1;

		k += (size_t)snprintf(text + k, sizeof text - k,
				      "@ 0x%x 0x%x 0x1100\n  t*: 1: %d [3: %d]\n",
				      0x2000 + i, 0x1200 + i % 7, w * 64, w * 192);
	}
	snprintf(text + k, sizeof text - k, "\nMAPPED_LIBRARIES:\n"
		 "00001000-00004000 r-xp 00001000 08:01 12 /p\n");
	return load(text);
}

static struct fk_profile *many_stacks(void)
{
	return many_stacks_as(0);
}

/* The limit's trie kept between encodings (fk_pprof_memo) changes no
 * byte: the same stacks with other values, other stacks, and back. */
static void test_limit_memo(void)
{
	static const int shapes[] = { 0, 0, 1, 1, 0, 2, 2, 0 };
	struct fk_pprof_memo *m = fk_pprof_memo_new((size_t)1 << 20);
	struct fk_pprof_memo *none = fk_pprof_memo_new(0);
	struct fk_pprof_opts o;
	struct fk_err err;
	int same = 1, same0 = 1;

	memset(&o, 0, sizeof o);
	fk_err_init(&err, "test");
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct fk_profile *p = many_stacks_as(shapes[i]);

		for (size_t max = 10; max <= 50; max += 40) {
			unsigned char *a = NULL, *b = NULL, *c = NULL;
			size_t an = 0, bn = 0, cn = 0;

			o.max_samples = max;
			o.memo = NULL;
			T_OK(fk_pprof_encode(p, &o, &a, &an, &err) == 0, "encodes shape %d, %zu samples",
			     shapes[i], max);
			o.memo = m;
			T_OK(fk_pprof_encode(p, &o, &b, &bn, &err) == 0, "and with a memo");
			o.memo = none;
			T_OK(fk_pprof_encode(p, &o, &c, &cn, &err) == 0, "and with a memo of no room");
			same &= a && b && an == bn && memcmp(a, b, an) == 0;
			same0 &= a && c && an == cn && memcmp(a, c, an) == 0;
			free(a);
			free(b);
			free(c);
		}
		fk_profile_free(p);
	}
	T_OK(same, "every encoding with the memo is the one without, byte for byte");
	T_OK(same0, "and with a memo that keeps nothing");
	T_OK(fk_pprof_memo_bytes(m) > fk_pprof_memo_bytes(none), "the memo keeps the trie (%zu bytes)",
	     fk_pprof_memo_bytes(m));
	fk_pprof_memo_free(m);
	fk_pprof_memo_free(none);
}

static void totals(const Perftools__Profiles__Profile *m, int64_t *t)
{
	memset(t, 0, 4 * sizeof *t);
	for (size_t i = 0; i < m->n_sample; i++)
		for (size_t j = 0; j < m->sample[i]->n_value && j < 4; j++)
			t[j] += m->sample[i]->value[j];
}

static void test_limit(void)
{
	struct fk_profile *p = many_stacks();
	struct fk_pprof_opts o;
	struct fk_pprof *full = NULL, *lim = NULL;
	struct fk_err err;
	unsigned char *a;
	size_t an;
	int64_t tf[4], tl[4];

	memset(&o, 0, sizeof o);
	fk_err_init(&err, "test");
	o.default_alloc = 1;
	o.duration_nanos = 2000000000;
	T_OK(fk_pprof_encode(p, &o, &a, &an, &err) == 0 && fk_pprof_read(a, an, &full, &err) == 0,
	     "200 stacks encode (%s)", err.msg);
	free(a);
	o.max_samples = 10;
	T_OK(fk_pprof_encode(p, &o, &a, &an, &err) == 0 && fk_pprof_read(a, an, &lim, &err) == 0,
	     "with max_samples 10 (%s); our validator checks every id", err.msg);
	free(a);
	if (!full || !lim)
		return;
	T_EQ_INT(full->msg->n_sample, 200, "without a limit, 200 samples");
	T_OK(lim->msg->n_sample <= 10 && lim->msg->n_sample >= 5, "at most 10 samples (%zu)",
	     lim->msg->n_sample);
	totals(full->msg, tf);
	totals(lim->msg, tl);
	T_OK(memcmp(tf, tl, sizeof tf) == 0, "every type's total kept (%lld %lld %lld %lld)",
	     (long long)tl[0], (long long)tl[1], (long long)tl[2], (long long)tl[3]);
	T_OK(lim->msg->n_location < full->msg->n_location, "unused locations dropped (%zu of %zu)",
	     lim->msg->n_location, full->msg->n_location);
	/* The heaviest stack (i = 199) is kept whole. */
	int whole = 0;
	for (size_t i = 0; i < lim->msg->n_sample; i++)
		whole |= lim->msg->sample[i]->n_location_id == 3 &&
			 lim->msg->sample[i]->value[1] == 200 * 192;
	T_OK(whole, "the heaviest stack is kept as it was");
	T_EQ_STR(str(lim, lim->msg->default_sample_type), "alloc_space", "default type alloc_space");
	T_EQ_INT(lim->msg->duration_nanos, 2000000000, "duration_nanos set");
	int utf8 = 1, bad = 0;
	for (size_t i = 0; i < full->nstrs; i++) {
		utf8 &= fk_utf8_valid(full->strs[i], strlen(full->strs[i])) == strlen(full->strs[i]);
		bad |= strstr(full->strs[i], "bad\xef\xbf\xbd\xef\xbf\xbdname") != NULL;
	}
	T_OK(utf8, "every string is valid UTF-8");
	T_OK(bad, "the invalid bytes became U+FFFD");
	fk_pprof_free(full);
	fk_pprof_free(lim);
	fk_profile_free(p);
}

/* The plain message of a gzipped profile, packed again by protobuf-c
 * (fields in number order), so that two encodings with the same fields
 * compare as bytes. */
static int canonical(const unsigned char *gz, size_t n, unsigned char **out, size_t *outlen)
{
	struct fk_err err;
	unsigned char *plain;
	size_t pn;
	Perftools__Profiles__Profile *m;

	fk_err_init(&err, "test");
	if (fk_gz_decompress(gz, n, (size_t)1 << 26, &plain, &pn, &err) < 0)
		return -1;
	m = perftools__profiles__profile__unpack(NULL, pn, plain);
	free(plain);
	if (!m)
		return -1;
	*outlen = perftools__profiles__profile__get_packed_size(m);
	*out = malloc(*outlen);
	perftools__profiles__profile__pack(m, *out);
	perftools__profiles__profile__free_unpacked(m, NULL);
	return 0;
}

/* A body stamped (fk_pprof_stamp) is the profile fk_pprof_encode makes
 * with those times, whatever the times, one gzip member zlib reads. */
static void test_stamp(void)
{
	static const int64_t times[][2] = {
		{ 1764633600123456789, 0 }, { 1, 30000000000 }, { 0, 0 }, { INT64_MAX, INT64_MAX },
	};
	struct fk_profile *p = load(sym_text);
	struct fk_pprof_body *b = NULL;
	struct fk_pprof_opts o;
	struct fk_err err;

	memset(&o, 0, sizeof o);
	o.level = 1;
	o.time_nanos = 42;             /* a body leaves its options' times out */
	fk_err_init(&err, "test");
	T_OK(fk_pprof_encode_body(p, &o, &b, &err) == 0, "encodes a body (%s)", err.msg);
	for (size_t i = 0; b && i < sizeof times / sizeof times[0]; i++) {
		unsigned char *whole, *stamped, *cw = NULL, *cs = NULL;
		size_t wn, sn, cwn = 0, csn = 0;
		struct fk_pprof *pp = NULL;

		o.time_nanos = times[i][0];
		o.duration_nanos = times[i][1];
		T_OK(fk_pprof_encode(p, &o, &whole, &wn, &err) == 0 &&
		     fk_pprof_stamp(b, times[i][0], times[i][1], &stamped, &sn, &err) == 0,
		     "encodes and stamps with times %lld, %lld", (long long)times[i][0],
		     (long long)times[i][1]);
		T_OK(fk_gz_is_gzip(stamped, sn) && canonical(whole, wn, &cw, &cwn) == 0 &&
		     canonical(stamped, sn, &cs, &csn) == 0 && cwn == csn && memcmp(cw, cs, cwn) == 0,
		     "the stamped profile has the encoded one's fields and values");
		T_OK(fk_pprof_read(stamped, sn, &pp, &err) == 0 && pp->msg->time_nanos == times[i][0] &&
		     pp->msg->duration_nanos == times[i][1], "our reader takes it, with its times (%s)",
		     err.msg);
		fk_pprof_free(pp);
		free(whole);
		free(stamped);
		free(cw);
		free(cs);
	}
	T_OK(fk_pprof_body_size(b) > 0, "a body says its size");
	fk_pprof_body_free(b);
	fk_profile_free(p);
}

int main(void)
{
	test_limit();
	test_limit_memo();
	test_gzip();
	test_u64map();
	test_rounding();
	test_encode();
	test_stamp();
	test_decode_checks();
	return T_DONE();
}
