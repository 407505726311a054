/* SPDX-License-Identifier: MIT */
/* Any profile the pipeline reads, as allocation sites with in-use and
 * allocated bytes: every format goes through the folded writers of
 * encode/ (to-folded's and from-pprof's, multi-column), so a site has the
 * name those tools give it, and then through core/folded.c's reader. */
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "folded_enc.h"
#include "grow.h"
#include "heapcheck.h"
#include "input.h"
#include "io.h"
#include "limits.h"
#include "num.h"
#include "pprof_dec.h"
#include "symbolize.h"

enum kind { K_PROFILE, K_PPROF, K_FOLDED };

static int starts(const char *d, size_t n, const char *tag)
{
	size_t t = strlen(tag);

	return n >= t && memcmp(d, tag, t) == 0;
}

/* Dumps and symbolized profiles say what they are on their first line;
 * pprof is binary (gzip's magic, or a protobuf field tag, a control
 * byte); everything else is read as folded stacks. */
static enum kind sniff(const char *d, size_t n)
{
	unsigned char c = n ? (unsigned char)d[0] : 0;

	/* "heap" alone: a damaged dump header gets the dump reader's message. */
	if (starts(d, n, "heap") || starts(d, n, "--- symbol"))
		return K_PROFILE;
	if (n >= 2 && c == 0x1f && (unsigned char)d[1] == 0x8b)
		return K_PPROF;
	if (n && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
		return K_PPROF;
	return K_FOLDED;
}

/* The reading of one folded text: which value columns matter. */
struct ctx {
	struct fk_sites *s;
	size_t ncols;
	long iu, ia;                   /* column of in-use and allocated bytes, -1 none */
	struct fk_err *err;
};

/* Splits the values of the columns before the last off the end of the
 * stack core/folded.c gave (it takes only the last field as the value). */
static int on_line(void *vc, const struct fk_folded_line *l)
{
	struct ctx *c = vc;
	struct fk_sites *s = c->s;
	int64_t vals[FK_MAX_COLUMNS];
	size_t len = l->len, k, sp;
	void *nv;

	vals[c->ncols - 1] = l->value;
	for (k = c->ncols - 1; k-- > 0;) {
		char q[64];

		for (sp = len; sp > 0 && l->stack[sp - 1] != ' '; sp--)
			;
		if (sp == 0)
			return fk_err_set(c->err, FK_ESYNTAX, l->lineno,
					  "%zu values, not %zu ('# columns:' header)",
					  c->ncols - 1 - k, c->ncols);
		if (fk_parse_i64(l->stack + sp, len - sp, &vals[k]) < 0) {
			fk_err_quote(q, sizeof q, l->stack + sp, len - sp);
			return fk_err_set(c->err, FK_ESYNTAX, l->lineno, "bad value '%s'", q);
		}
		len = sp;
		while (len > 0 && l->stack[len - 1] == ' ')
			len--;
		if (len == 0)
			return fk_err_set(c->err, FK_ESYNTAX, l->lineno, "empty stack");
	}
	if (s->n >= FK_MAX_STACKS)
		return fk_err_set(c->err, FK_ELIMIT, l->lineno, "more than %d stacks",
				  FK_MAX_STACKS);
	if (!(nv = fk_grow(s->v, &s->cap, s->n, sizeof *s->v, 256)))
		return fk_err_set(c->err, FK_ENOMEM, 0, "out of memory");
	s->v = nv;
	s->v[s->n].stack = l->stack;
	s->v[s->n].len = len;
	s->v[s->n].inuse = vals[c->iu];
	s->v[s->n].alloc = c->ia >= 0 ? vals[c->ia] : 0;
	s->n++;
	return 0;
}

/* Reads a "# columns: NAME/UNIT ..." line s[0..n) into c: the columns of
 * inuse_space and alloc_space (to-folded --columns, from-pprof --columns). */
static int columns(struct ctx *c, const char *s, size_t n, struct fk_err *err)
{
	size_t i = strlen("# columns:"), k = 0;

	c->iu = c->ia = -1;
	while (i < n) {
		size_t b, e;

		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			break;
		for (b = i; i < n && s[i] != ' ' && s[i] != '\t'; i++)
			;
		for (e = b; e < i && s[e] != '/'; e++)
			;
		if (k >= FK_MAX_COLUMNS)
			return fk_err_set(err, FK_ELIMIT, 1, "more than %d columns",
					  FK_MAX_COLUMNS);
		if (e - b == 11 && memcmp(s + b, "inuse_space", 11) == 0 && c->iu < 0)
			c->iu = (long)k;
		if (e - b == 11 && memcmp(s + b, "alloc_space", 11) == 0 && c->ia < 0)
			c->ia = (long)k;
		k++;
	}
	if (c->iu < 0)
		return fk_err_set(err, FK_EUNSUPP, 1,
				  "no inuse_space column in the '# columns:' header");
	c->ncols = k;
	return 0;
}

static int by_stack(const void *a, const void *b)
{
	const struct fk_site *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int d = memcmp(x->stack, y->stack, n);

	return d ? d : (x->len > y->len) - (x->len < y->len);
}

/* Sorts the sites, merges equal stacks, sums the totals. */
static int finish(struct fk_sites *s, struct fk_err *err)
{
	size_t i, j = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, by_stack);
	s->inuse = s->alloc = 0;
	for (i = 0; i < s->n; i++) {
		struct fk_site *t = &s->v[i];

		if (j > 0 && by_stack(&s->v[j - 1], t) == 0) {
			if (__builtin_add_overflow(s->v[j - 1].inuse, t->inuse, &s->v[j - 1].inuse) ||
			    __builtin_add_overflow(s->v[j - 1].alloc, t->alloc, &s->v[j - 1].alloc))
				return fk_err_set(err, FK_ELIMIT, 0, "a stack's total overflows");
		} else {
			s->v[j++] = *t;
		}
		if (__builtin_add_overflow(s->inuse, t->inuse, &s->inuse) ||
		    __builtin_add_overflow(s->alloc, t->alloc, &s->alloc))
			return fk_err_set(err, FK_ELIMIT, 0, "the profile's total overflows");
	}
	s->n = j;
	return 0;
}

/* Reads folded text data[0..len) into s, whose other fields are set. */
static int parse(struct fk_sites *s, const char *data, size_t len, struct fk_err *err)
{
	struct ctx c = { s, 1, 0, -1, err };
	uint64_t lineno = 0;
	size_t hl = 0;

	if (starts(data, len, "# columns:")) {
		const char *nl = memchr(data, '\n', len);
		size_t e = nl ? (size_t)(nl - data) : len;

		hl = e + (nl != NULL);
		if (e > 0 && data[e - 1] == '\r')
			e--;
		if (columns(&c, data, e, err) < 0)
			return -1;
		lineno = 1;
	}
	s->has_alloc = c.ia >= 0;
	if (fk_folded_each_from(data + hl, len - hl, &lineno, 0, on_line, NULL, &c, err) < 0)
		return -1;
	return finish(s, err);
}

int fk_sites_parse_folded(struct fk_sites *s, const char *source, const char *data,
			  size_t len, struct fk_err *err)
{
	memset(s, 0, sizeof *s);
	s->source = source;            /* s->text stays NULL: data is borrowed */
	return parse(s, data, len, err);
}

/* Runs a folded writer into memory, then reads its text. */
struct writer {
	const struct fk_profile *p;
	const struct fk_pprof *pp;
};

static int has_type(const struct fk_pprof *pp, const char *name)
{
	size_t i;

	for (i = 0; i < fk_pprof_ntypes(pp); i++)
		if (strcmp(fk_pprof_type_name(pp, i), name) == 0)
			return 1;
	return 0;
}

static int fold(struct fk_sites *s, const struct writer *w, struct fk_err *err)
{
	struct fk_folded_opts fo = { .columns = 1 };
	FILE *f = open_memstream(&s->text, &s->textlen);
	int rc;

	if (!f)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	rc = w->p ? fk_folded_write(w->p, &fo, f, err)
		  : fk_pprof_folded_write(w->pp, SIZE_MAX, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (rc < 0)
		return -1;
	return parse(s, s->text, s->textlen, err);
}

int fk_sites_load(struct fk_sites *s, const char *path, fk_sites_warn_fn *warn,
		  void *warn_ctx, struct fk_err *err)
{
	const char *src;
	struct fk_symbolize_opts so = { .warn = warn, .warn_ctx = warn_ctx };
	struct fk_profile *p;
	struct fk_pprof *pp;
	struct writer w = { NULL, NULL };
	char *data;
	size_t len;
	int mapped, rc;

	memset(s, 0, sizeof *s);
	s->source = src = path && strcmp(path, "-") ? path : "stdin";
	if (fk_map_input(path, &data, &len, &mapped, err) < 0)
		return -1;
	if (len == 0) {
		fk_release_input(data, len, mapped);
		return fk_err_set(err, FK_ESYNTAX, 0, "empty input, not a profile");
	}
	switch (sniff(data, len)) {
	case K_FOLDED:
		s->text = data;
		s->textlen = len;
		s->text_input = 1;
		s->mapped = mapped;
		if (memchr(data, '\0', len))
			return fk_err_set(err, FK_ESYNTAX, 0, "not a profile (binary data)");
		return parse(s, data, len, err);
	case K_PPROF:
		rc = fk_pprof_read(data, len, &pp, err);
		fk_release_input(data, len, mapped);
		if (rc < 0)
			return -1;
		if (!has_type(pp, "inuse_space")) {
			fk_pprof_free(pp);
			return fk_err_set(err, FK_EUNSUPP, 0,
					  "no inuse_space sample type: not a heap profile");
		}
		w.pp = pp;
		rc = fold(s, &w, err);
		fk_pprof_free(pp);
		return rc;
	case K_PROFILE:
		break;
	}
	if (!(p = fk_profile_new(src))) {
		fk_release_input(data, len, mapped);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	fk_profile_own_input(p, data, len, mapped);
	rc = fk_profile_parse(p, data, len, err);
	/* Patterns name functions: a raw dump is symbolized here, with its
	 * own maps, as symbolize would do it. */
	if (rc == 0 && !p->symbolized)
		rc = fk_symbolize(p, &so, err);
	w.p = p;
	if (rc == 0)
		rc = fold(s, &w, err);
	fk_profile_free(p);
	return rc;
}

void fk_sites_release(struct fk_sites *s)
{
	if (s->text_input)
		fk_release_input(s->text, s->textlen, s->mapped);
	else
		free(s->text);
	free(s->v);
	memset(s, 0, sizeof *s);
}
