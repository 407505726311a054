/* SPDX-License-Identifier: MIT */
/* Writer of jemalloc heap dumps in the heap_v2 layout of jemalloc 5.3
 * (src/prof_data.c), which jeprof reads exactly as it read the original:
 * the stacks, thread lines and maps are written as read; only the header
 * totals are recomputed from the stacks. */
#include "heapdump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static void add_counts(struct fk_counts *to, const struct fk_counts *c)
{
	to->objs = sat_add(to->objs, c->objs);
	to->bytes = sat_add(to->bytes, c->bytes);
	to->acc_objs = sat_add(to->acc_objs, c->acc_objs);
	to->acc_bytes = sat_add(to->acc_bytes, c->acc_bytes);
}

static char *put_i64(char *o, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (v < 0)
		*o++ = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*o++ = tmp[--n];
	return o;
}

static char *put_hex(char *o, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	/* jemalloc's "%#x": "0x" and no leading zeros; zero is "0". */
	if (v == 0) {
		*o++ = '0';
		return o;
	}
	*o++ = '0';
	*o++ = 'x';
	while (v) {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	}
	while (n)
		*o++ = tmp[--n];
	return o;
}

static char *put_counts(char *o, const struct fk_counts *c)
{
	o = put_i64(o, c->objs);
	*o++ = ':';
	*o++ = ' ';
	o = put_i64(o, c->bytes);
	*o++ = ' ';
	*o++ = '[';
	o = put_i64(o, c->acc_objs);
	*o++ = ':';
	*o++ = ' ';
	o = put_i64(o, c->acc_bytes);
	*o++ = ']';
	return o;
}

/* "INDENTtID: counts[ name]\n", or "INDENTt*: ..." when id is NULL. */
static void put_thread_line(FILE *out, const char *indent, const uint64_t *id,
			    const struct fk_counts *c, const char *name)
{
	char buf[128], *o = buf;

	fputs(indent, out);
	*o++ = 't';
	if (id) {
		o = put_i64(o, (int64_t)*id);
	} else {
		*o++ = '*';
	}
	*o++ = ':';
	*o++ = ' ';
	o = put_counts(o, c);
	fwrite(buf, 1, (size_t)(o - buf), out);
	if (name) {
		fputc(' ', out);
		fputs(name, out);
	}
	fputc('\n', out);
}

int fk_heapdump_write(const struct fk_profile *p, FILE *out, struct fk_err *err)
{
	struct fk_counts total = { 0, 0, 0, 0 }, *per;
	/* "@", FK_MAX_DEPTH frames and the root mark of " 0x" and 16 digits. */
	char buf[2 + 19 * (FK_MAX_DEPTH + 1) + 8];
	size_t i, j;

	per = calloc(p->nthreads ? p->nthreads : 1, sizeof *per);
	if (!per)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *s = &p->stacks[i];

		add_counts(&total, &s->c);
		for (j = 0; j < s->nthr; j++)
			add_counts(&per[s->thr[j].thread], &s->thr[j].c);
	}
	fprintf(out, "heap_v2/%llu\n", (unsigned long long)p->period);
	put_thread_line(out, "  ", NULL, &total, NULL);
	for (i = 0; i < p->nthreads; i++)
		put_thread_line(out, "  ", &p->threads[i].id, &per[i], p->threads[i].name);
	free(per);

	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *s = &p->stacks[i];
		char *o = buf;

		if (s->depth > FK_MAX_DEPTH + (uint32_t)(s->depth && s->addrs[s->depth - 1] == FK_ADDR_TRUNCATED))
			return fk_err_set(err, FK_ELIMIT, 0, "stack deeper than %d frames",
					  FK_MAX_DEPTH);
		*o++ = '@';
		for (j = 0; j < s->depth; j++) {
			*o++ = ' ';
			o = put_hex(o, s->addrs[j]);
		}
		*o++ = '\n';
		fwrite(buf, 1, (size_t)(o - buf), out);
		put_thread_line(out, "  ", NULL, &s->c, NULL);
		for (j = 0; j < s->nthr; j++)
			put_thread_line(out, "  ", &p->threads[s->thr[j].thread].id,
					&s->thr[j].c, NULL);
	}
	fputs("\nMAPPED_LIBRARIES:\n", out);
	if (p->maps_len)
		fwrite(p->maps_text, 1, p->maps_len, out);
	if (ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error: %s", strerror(errno));
	return 0;
}
