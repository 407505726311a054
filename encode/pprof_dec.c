/* SPDX-License-Identifier: MIT */
/* Decoding and validating a pprof profile (profile.proto, see
 * encode/profile.proto): protobuf-c unpacks the wire format, then the checks
 * of pprof's own decoder (profile/encode.go postDecode, profile.go
 * CheckValid), stricter where pprof silently drops a dangling reference. */
#include "pprof_dec.h"
#include "encode_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"

void fk_pprof_free(struct fk_pprof *pp)
{
	if (!pp)
		return;
	if (pp->msg)
		perftools__profiles__profile__free_unpacked(pp->msg, NULL);
	free(pp->strs);
	free(pp->pool);
	fk_u64map_release(&pp->mapix);
	fk_u64map_release(&pp->locix);
	fk_u64map_release(&pp->funix);
	free(pp);
}

/* Checks one string index; what names the field for the message. */
static int check_str(const struct fk_pprof *pp, int64_t ix, const char *what,
		     struct fk_err *err)
{
	if (ix < 0 || (uint64_t)ix >= pp->nstrs)
		return fk_err_set(err, FK_ESYNTAX, 0,
				  "%s: string index '%" PRId64 "' out of range (%zu strings)",
				  what, ix, pp->nstrs);
	return 0;
}

static int make_strings(struct fk_pprof *pp, struct fk_err *err)
{
	const Perftools__Profiles__Profile *m = pp->msg;
	size_t i, total = 0;
	char *d;

	if (m->n_string_table == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty string table (string_table[0] must be '')");
	if (m->string_table[0].len != 0) {
		char q[128];

		q[0] = 0;
		fk_err_quote(q, sizeof q, (const char *)m->string_table[0].data,
			     m->string_table[0].len);
		return fk_err_set(err, FK_ESYNTAX, 0, "string_table[0] must be '' but is '%s'", q);
	}
	for (i = 0; i < m->n_string_table; i++)
		total += m->string_table[i].len + 1;   /* bounded by the input size */
	pp->strs = malloc(m->n_string_table * sizeof *pp->strs);
	pp->pool = malloc(total ? total : 1);
	if (!pp->strs || !pp->pool)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	d = pp->pool;
	for (i = 0; i < m->n_string_table; i++) {
		size_t n = m->string_table[i].len;

		if (n)
			memcpy(d, m->string_table[i].data, n);
		d[n] = 0;
		pp->strs[i] = d;
		d += n + 1;
	}
	pp->nstrs = m->n_string_table;
	return 0;
}

/* Indexes ids[i] -> i, rejecting 0 and duplicates. */
static int index_ids(struct fk_u64map *ix, size_t n, uint64_t (*id_of)(const void *, size_t),
		     const void *arr, const char *what, struct fk_err *err)
{
	size_t i;

	if (n >= UINT32_MAX)
		return fk_err_set(err, FK_ELIMIT, 0, "too many %ss", what);
	for (i = 0; i < n; i++) {
		uint64_t id = id_of(arr, i);

		if (id == 0)
			return fk_err_set(err, FK_ESYNTAX, 0, "%s %zu: id '0' is reserved", what, i + 1);
		if (fk_u64map_get(ix, id) != UINT32_MAX)
			return fk_err_set(err, FK_ESYNTAX, 0, "%s %zu: duplicate id '%" PRIu64 "'",
					  what, i + 1, id);
		if (fk_u64map_put(ix, id, (uint32_t)i) < 0)
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	return 0;
}

static uint64_t map_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Mapping *const *)a)[i]->id;
}

static uint64_t loc_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Location *const *)a)[i]->id;
}

static uint64_t fun_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Function *const *)a)[i]->id;
}

static int check_all_strings(const struct fk_pprof *pp, struct fk_err *err)
{
	const Perftools__Profiles__Profile *m = pp->msg;
	char what[64];
	size_t i, j;

	for (i = 0; i < m->n_sample_type; i++) {
		snprintf(what, sizeof what, "sample type %zu", i + 1);
		if (check_str(pp, m->sample_type[i]->type, what, err) < 0 ||
		    check_str(pp, m->sample_type[i]->unit, what, err) < 0)
			return -1;
	}
	for (i = 0; i < m->n_mapping; i++) {
		snprintf(what, sizeof what, "mapping %zu", i + 1);
		if (check_str(pp, m->mapping[i]->filename, what, err) < 0 ||
		    check_str(pp, m->mapping[i]->build_id, what, err) < 0)
			return -1;
	}
	for (i = 0; i < m->n_function; i++) {
		const Perftools__Profiles__Function *f = m->function[i];

		snprintf(what, sizeof what, "function %zu", i + 1);
		if (check_str(pp, f->name, what, err) < 0 ||
		    check_str(pp, f->system_name, what, err) < 0 ||
		    check_str(pp, f->filename, what, err) < 0)
			return -1;
	}
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];

		for (j = 0; j < s->n_label; j++) {
			snprintf(what, sizeof what, "sample %zu: label %zu", i + 1, j + 1);
			if (check_str(pp, s->label[j]->key, what, err) < 0 ||
			    check_str(pp, s->label[j]->str, what, err) < 0 ||
			    check_str(pp, s->label[j]->num_unit, what, err) < 0)
				return -1;
		}
	}
	if (m->period_type) {
		if (check_str(pp, m->period_type->type, "period type", err) < 0 ||
		    check_str(pp, m->period_type->unit, "period type", err) < 0)
			return -1;
	}
	for (i = 0; i < m->n_comment; i++) {
		snprintf(what, sizeof what, "comment %zu", i + 1);
		if (check_str(pp, m->comment[i], what, err) < 0)
			return -1;
	}
	if (check_str(pp, m->drop_frames, "drop_frames", err) < 0 ||
	    check_str(pp, m->keep_frames, "keep_frames", err) < 0 ||
	    check_str(pp, m->default_sample_type, "default_sample_type", err) < 0)
		return -1;
	return 0;
}

static int check_refs(struct fk_pprof *pp, struct fk_err *err)
{
	const Perftools__Profiles__Profile *m = pp->msg;
	size_t i, j;

	if (index_ids(&pp->mapix, m->n_mapping, map_id, m->mapping, "mapping", err) < 0 ||
	    index_ids(&pp->funix, m->n_function, fun_id, m->function, "function", err) < 0 ||
	    index_ids(&pp->locix, m->n_location, loc_id, m->location, "location", err) < 0)
		return -1;
	for (i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *l = m->location[i];

		if (l->mapping_id && fk_u64map_get(&pp->mapix, l->mapping_id) == UINT32_MAX)
			return fk_err_set(err, FK_ESYNTAX, 0,
					  "location %zu: unknown mapping id '%" PRIu64 "'",
					  i + 1, l->mapping_id);
		if (l->n_line > FK_MAX_INLINE)
			return fk_err_set(err, FK_ELIMIT, 0,
					  "location %zu: %zu inline lines, more than %d",
					  i + 1, l->n_line, FK_MAX_INLINE);
		for (j = 0; j < l->n_line; j++)
			if (fk_u64map_get(&pp->funix, l->line[j]->function_id) == UINT32_MAX)
				return fk_err_set(err, FK_ESYNTAX, 0,
						  "location %zu: line %zu: unknown function id '%" PRIu64 "'",
						  i + 1, j + 1, l->line[j]->function_id);
	}
	if (m->n_sample && !m->n_sample_type)
		return fk_err_set(err, FK_ESYNTAX, 0, "profile has samples but no sample type");
	/* Each type's total, without sign, must stay below 2^FK_MAX_TOTAL_LG
	 * (the rule of core/heapdump.c), so no merge of samples overflows. */
	uint64_t *sum = calloc(m->n_sample_type ? m->n_sample_type : 1, sizeof *sum);
	if (!sum)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];

		if (s->n_value != m->n_sample_type) {
			free(sum);
			return fk_err_set(err, FK_ESYNTAX, 0,
					  "sample %zu: %zu values for %zu sample types",
					  i + 1, s->n_value, m->n_sample_type);
		}
		for (j = 0; j < s->n_value; j++) {
			int64_t v = s->value[j];
			uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

			if (a >= ((uint64_t)1 << FK_MAX_TOTAL_LG) - sum[j]) {
				free(sum);
				return fk_err_set(err, FK_ELIMIT, 0,
						  "sample %zu: values make the total of sample "
						  "type %zu pass 2^%d", i + 1, j + 1,
						  FK_MAX_TOTAL_LG);
			}
			sum[j] += a;
		}
	}
	free(sum);
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];

		if (s->n_location_id > FK_MAX_DEPTH_ANY)
			return fk_err_set(err, FK_ELIMIT, 0,
					  "sample %zu: %zu locations, more than %d",
					  i + 1, s->n_location_id, FK_MAX_DEPTH_ANY);
		for (j = 0; j < s->n_location_id; j++)
			if (fk_u64map_get(&pp->locix, s->location_id[j]) == UINT32_MAX)
				return fk_err_set(err, FK_ESYNTAX, 0,
						  "sample %zu: unknown location id '%" PRIu64 "'",
						  i + 1, s->location_id[j]);
	}
	return 0;
}

static int get_varint(const unsigned char *d, size_t len, size_t *off, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (*off >= len)
			return -1;
		x |= (uint64_t)(d[*off] & 0x7f) << shift;
		if (!(d[(*off)++] & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* protobuf-c says only that unpacking failed: walk the top-level fields
 * to say where and why. Field numbers and wire types of Profile are those
 * of profile.proto. */
static int wire_error(const unsigned char *d, size_t len, int gz, struct fk_err *err)
{
	static const signed char want[15] = { -1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, -2, 0 };
	const char *where = gz ? " of the decompressed data" : "";
	size_t off = 0;

	while (off < len) {
		size_t at = off;
		uint64_t k, v;
		unsigned wt;

		if (get_varint(d, len, &off, &k) < 0)
			return fk_err_set_off(err, FK_ESYNTAX, at, "bad field key%s", where);
		wt = (unsigned)(k & 7);
		if (k >> 3 == 0 || wt == 3 || wt == 4 || wt > 5)
			return fk_err_set_off(err, FK_ESYNTAX, at,
					      "bad field key '0x%" PRIx64 "'%s", k, where);
		if (k >> 3 < 15 && want[k >> 3] >= 0 && (unsigned)want[k >> 3] != wt)
			return fk_err_set_off(err, FK_ESYNTAX, at,
					      "field %" PRIu64 " has wire type %u, expected %d%s",
					      k >> 3, wt, want[k >> 3], where);
		switch (wt) {
		case 0:
			if (get_varint(d, len, &off, &v) < 0)
				return fk_err_set_off(err, FK_ESYNTAX, at, "truncated varint%s", where);
			break;
		case 1:
		case 5:
			if (len - off < (wt == 1 ? 8u : 4u))
				return fk_err_set_off(err, FK_ESYNTAX, at, "truncated field%s", where);
			off += wt == 1 ? 8 : 4;
			break;
		default:
			if (get_varint(d, len, &off, &v) < 0 || v > len - off)
				return fk_err_set_off(err, FK_ESYNTAX, at,
						      "field %" PRIu64 " runs past the end%s",
						      k >> 3, where);
			off += v;
			break;
		}
	}
	return fk_err_set(err, FK_ESYNTAX, 0,
			  "not a pprof profile (malformed message inside a field)");
}

int fk_pprof_read(const void *data, size_t len, struct fk_pprof **out,
		  struct fk_err *err)
{
	struct fk_pprof *pp;
	unsigned char *plain = NULL, *packed = NULL;
	size_t plen = len;
	const void *buf = data;

	*out = NULL;
	if (len == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty input");
	if (fk_gz_is_gzip(data, len)) {
		if (fk_gz_decompress(data, len, FK_MAX_PPROF_INFLATED, &plain, &plen, err) < 0)
			return -1;
		buf = plain;
	}
	/* google/pprof's legacy formats, which go tool pprof reads too,
	 * become the protobuf message decoded below. */
	switch (fk_legacy_read(buf, plen, &packed, &plen, err)) {
	case 1:
		free(plain);
		plain = packed;
		buf = packed;
		break;
	case -1:
		free(plain);
		return -1;
	}
	pp = calloc(1, sizeof *pp);
	if (!pp) {
		free(plain);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	fk_u64map_init(&pp->mapix);
	fk_u64map_init(&pp->locix);
	fk_u64map_init(&pp->funix);
	pp->msg = perftools__profiles__profile__unpack(NULL, plen, buf);
	if (!pp->msg) {
		wire_error(buf, plen, plain != NULL, err);
		free(plain);
		fk_pprof_free(pp);
		return -1;
	}
	free(plain);
	if (make_strings(pp, err) < 0 || check_all_strings(pp, err) < 0 ||
	    check_refs(pp, err) < 0) {
		fk_pprof_free(pp);
		return -1;
	}
	*out = pp;
	return 0;
}

size_t fk_pprof_ntypes(const struct fk_pprof *pp)
{
	return pp->msg->n_sample_type;
}

const char *fk_pprof_type_name(const struct fk_pprof *pp, size_t i)
{
	return pp->strs[pp->msg->sample_type[i]->type];
}

const char *fk_pprof_type_unit(const struct fk_pprof *pp, size_t i)
{
	return pp->strs[pp->msg->sample_type[i]->unit];
}

int fk_pprof_pick_type(const struct fk_pprof *pp, const char *type,
		       struct fk_err *err)
{
	size_t i, n = pp->msg->n_sample_type;
	const char *want = type;

	if (n == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "profile has no sample type");
	if (!want && pp->msg->default_sample_type)
		want = pp->strs[pp->msg->default_sample_type];
	if (want) {
		for (i = 0; i < n; i++)
			if (strcmp(fk_pprof_type_name(pp, i), want) == 0)
				return (int)i;
		if (!type)          /* a default naming no type: pprof uses the last */
			return (int)(n - 1);
		{
			char q[128];

			q[0] = 0;
			fk_err_quote(q, sizeof q, type, strlen(type));
			return fk_err_set(err, FK_EUNSUPP, 0, "no sample type '%s' in profile", q);
		}
	}
	return (int)(n - 1);
}
