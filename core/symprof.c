/* SPDX-License-Identifier: MIT */
/* The symbolized profile (see symprof.h): jeprof's "--- symbol" section with
 * flamekit's "=" lines, then "--- heap" and the raw dump. */
#include "symprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "heapdump.h"
#include "limits.h"
#include "num.h"
#include "strtab.h"

#ifndef FK_VERSION
#define FK_VERSION "unknown"
#endif

struct pending {
	struct fk_sym sym;
	uint64_t lineno;
	int prio;                      /* 1 for "=sym", 0 for a jeprof line */
};

struct sreader {
	struct fk_profile *p;
	struct fk_err *err;
	uint64_t lineno;
	struct pending *v;
	size_t n, cap;
	size_t modcap;
};

static int syntax(struct sreader *r, const char *what, const char *s, size_t n)
{
	char q[64];

	return fk_err_set(r->err, FK_ESYNTAX, r->lineno, "%s '%s'", what,
			  fk_err_quote(q, sizeof q, s, n));
}

static int nomem(struct sreader *r)
{
	return fk_err_set(r->err, FK_ENOMEM, r->lineno, "out of memory");
}

static const char *intern(struct sreader *r, const char *s, size_t n)
{
	return fk_strtab_intern(r->p->strs, s, n);
}

static int add_pending(struct sreader *r, uint64_t key, struct fk_frame *fr,
		       uint32_t nframes, int placeholder, int prio)
{
	struct pending *pd;
	void *grown;

	grown = fk_grow(r->v, &r->cap, r->n, sizeof *r->v, 256);
	if (!grown)
		return nomem(r);
	r->v = grown;
	pd = &r->v[r->n++];
	memset(pd, 0, sizeof *pd);
	pd->sym.key = key;
	pd->sym.nframes = nframes;
	pd->sym.frames = fr;
	pd->sym.placeholder = placeholder ? 1 : 0;
	pd->lineno = r->lineno;
	pd->prio = prio;
	return 0;
}

/* "0xPC outer--inlined--inner": jeprof's own symbol line. */
static int jeprof_line(struct sreader *r, const char *s, const char *end)
{
	const char *t = s, *names, *q;
	struct fk_frame *fr;
	uint32_t n = 1, i;
	uint64_t key;

	while (t < end && *t != ' ' && *t != '\t')
		t++;
	if (fk_parse_hex(s, (size_t)(t - s), 1, &key) < 0)
		return syntax(r, "bad symbol address", s, (size_t)(t - s));
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	names = t;
	if (names == end)
		return syntax(r, "symbol line without a name", s, (size_t)(end - s));
	for (q = names; q + 1 < end; q++)
		if (q[0] == '-' && q[1] == '-')
			n++, q++;
	if (n > FK_MAX_INLINE)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno,
				  "more than %d inline frames", FK_MAX_INLINE);
	fr = fk_arena_alloc(r->p->arena, n * sizeof *fr);
	if (!fr)
		return nomem(r);
	/* Outer first in the file, innermost first in the model. */
	for (i = 0; i < n; i++) {
		const char *e = names;

		while (e + 1 < end && !(e[0] == '-' && e[1] == '-'))
			e++;
		if (e + 1 >= end)
			e = end;
		/* "a----b" or a leading or trailing "--": a frame without a
		 * name, which no writer (and no "=sym" line) may give. */
		if (e == names)
			return syntax(r, "empty function name in", s, (size_t)(end - s));
		fr[n - 1 - i].name = fr[n - 1 - i].sysname = intern(r, names, (size_t)(e - names));
		fr[n - 1 - i].file = NULL;
		fr[n - 1 - i].line = 0;
		if (!fr[n - 1 - i].name)
			return nomem(r);
		names = e + 2;
	}
	return add_pending(r, key, fr, n, 0, 0);
}

/* Splits s at tabs into at most max fields; returns the count or -1. */
static int split_tabs(const char *s, const char *end, const char **f, size_t *fl, int max)
{
	int n = 0;

	for (;;) {
		const char *t = memchr(s, '\t', (size_t)(end - s));

		if (n == max)
			return -1;
		f[n] = s;
		fl[n] = t ? (size_t)(t - s) : (size_t)(end - s);
		n++;
		if (!t)
			return n;
		s = t + 1;
	}
}

/* "=sym 0xKEY<TAB>KIND<TAB>NAME<TAB>SYSNAME<TAB>FILE<TAB>LINE..." */
static int fk_sym_line(struct sreader *r, const char *s, const char *end)
{
	enum { MAXF = 2 + 4 * FK_MAX_INLINE };
	const char *f[MAXF];
	size_t fl[MAXF];
	struct fk_frame *fr;
	uint64_t key;
	uint32_t n, i;
	int nf = split_tabs(s, end, f, fl, MAXF);

	if (nf < 0)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno,
				  "more than %d inline frames", FK_MAX_INLINE);
	if (nf < 6 || (nf - 2) % 4)
		return syntax(r, "bad =sym line", s, (size_t)(end - s));
	if (fk_parse_hex(f[0], fl[0], 1, &key) < 0)
		return syntax(r, "bad symbol address", f[0], fl[0]);
	if (fl[1] != 1 || (f[1][0] != 'f' && f[1][0] != 'm'))
		return syntax(r, "bad symbol kind", f[1], fl[1]);
	n = (uint32_t)(nf - 2) / 4;
	fr = fk_arena_alloc(r->p->arena, n * sizeof *fr);
	if (!fr)
		return nomem(r);
	for (i = 0; i < n; i++) {
		const char **g = f + 2 + 4 * i;
		size_t *gl = fl + 2 + 4 * i;
		struct fk_frame *x = &fr[n - 1 - i];
		uint64_t line;

		if (gl[0] == 0)
			return syntax(r, "empty function name in", s, (size_t)(end - s));
		if (fk_parse_u64(g[3], gl[3], &line) < 0 || line > UINT32_MAX)
			return syntax(r, "bad line number", g[3], gl[3]);
		x->name = intern(r, g[0], gl[0]);
		x->sysname = gl[1] ? intern(r, g[1], gl[1]) : x->name;
		x->file = gl[2] ? intern(r, g[2], gl[2]) : NULL;
		x->line = (uint32_t)line;
		if (!x->name || !x->sysname || (gl[2] && !x->file))
			return nomem(r);
	}
	return add_pending(r, key, fr, n, f[1][0] == 'm', 1);
}

/* "=build-id HEX<TAB>PATH" */
static int build_id_line(struct sreader *r, const char *s, const char *end)
{
	const char *tab = memchr(s, '\t', (size_t)(end - s)), *q;
	struct fk_profile *p = r->p;
	struct fk_module *m;
	void *grown;

	if (!tab || tab == s || tab + 1 == end)
		return syntax(r, "bad =build-id line", s, (size_t)(end - s));
	for (q = s; q < tab; q++)
		if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
			return syntax(r, "bad build-id", s, (size_t)(tab - s));
	grown = fk_grow(p->modules, &r->modcap, p->nmodules, sizeof *p->modules, 16);
	if (!grown)
		return nomem(r);
	p->modules = grown;
	m = &p->modules[p->nmodules];
	m->build_id = intern(r, s, (size_t)(tab - s));
	m->path = intern(r, tab + 1, (size_t)(end - tab - 1));
	if (!m->build_id || !m->path)
		return nomem(r);
	p->nmodules++;
	return 0;
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->sym.key != y->sym.key)
		return x->sym.key < y->sym.key ? -1 : 1;
	if (x->prio != y->prio)
		return y->prio - x->prio;          /* "=sym" first */
	return x->lineno < y->lineno ? -1 : x->lineno > y->lineno;
}

/* Sorts the symbols, keeps the best per key, stores them in p. */
static int finish_syms(struct sreader *r)
{
	struct fk_profile *p = r->p;
	size_t i, n = 0;

	if (r->n)
		qsort(r->v, r->n, sizeof *r->v, pending_cmp);
	p->syms = malloc((r->n ? r->n : 1) * sizeof *p->syms);
	if (!p->syms)
		return nomem(r);
	for (i = 0; i < r->n; i++) {
		if (i > 0 && r->v[i].sym.key == r->v[i - 1].sym.key) {
			if (r->v[i].prio == r->v[i - 1].prio) {
				r->lineno = r->v[i].lineno;
				return fk_err_set(r->err, FK_ESYNTAX, r->lineno,
						  "second symbol for address '0x%llx'",
						  (unsigned long long)r->v[i].sym.key);
			}
			continue;
		}
		p->syms[n++] = r->v[i].sym;
	}
	p->nsyms = n;
	p->symbolized = 1;
	return 0;
}

static int is_variable(const char *s, const char *end)
{
	const char *q;

	if (s >= end || *s < 'a' || *s > 'z')
		return 0;
	for (q = s; q < end; q++)
		if (*q == '=')
			return 1;
	return 0;
}

/* The "--- symbol" section up to its "---" line; *off is where it ends. */
static int read_symbols(struct sreader *r, const char *data, size_t len, size_t *off)
{
	const char *cur = data, *end = data + len;

	while (cur < end) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		const char *s = cur, *e = nl ? nl : end;

		r->lineno++;
		cur = nl ? nl + 1 : end;
		if ((size_t)(e - s) > FK_MAX_LINE)
			return fk_err_set(r->err, FK_ELIMIT, r->lineno,
					  "line longer than %d bytes", FK_MAX_LINE);
		if (memchr(s, '\0', (size_t)(e - s)))
			return fk_err_set(r->err, FK_ESYNTAX, r->lineno, "NUL byte in line");
		if (e > s && e[-1] == '\r')
			return fk_err_set(r->err, FK_ESYNTAX, r->lineno,
					  "carriage return at end of line (CRLF line endings)");
		if (!nl)
			return syntax(r, "last line not terminated (truncated?)", s, (size_t)(e - s));
		if (e - s >= 3 && memcmp(s, "---", 3) == 0) {
			*off = (size_t)(cur - data);
			return finish_syms(r);
		}
		if (s == e)
			continue;
		if (e - s >= 2 && s[0] == '0' && s[1] == 'x') {
			if (jeprof_line(r, s, e) < 0)
				return -1;
		} else if (e - s > 5 && memcmp(s, "=sym ", 5) == 0) {
			if (fk_sym_line(r, s + 5, e) < 0)
				return -1;
		} else if (e - s > 10 && memcmp(s, "=build-id ", 10) == 0) {
			if (build_id_line(r, s + 10, e) < 0)
				return -1;
		} else if (e - s > 10 && memcmp(s, "=flamekit ", 10) == 0) {
			static const char kept[] = " allocator-frames=kept";

			if ((size_t)(e - s) >= sizeof kept - 1 &&
			    memcmp(e - (sizeof kept - 1), kept, sizeof kept - 1) == 0)
				r->p->allocator_frames_kept = 1;
		} else if (e - s > 7 && memcmp(s, "binary=", 7) == 0) {
			r->p->binary = intern(r, s + 7, (size_t)(e - s - 7));
			if (!r->p->binary)
				return nomem(r);
		} else if (s[0] != '=' && !is_variable(s, e)) {
			/* "=word" lines are ours (newer versions may add some);
			 * "variable=value" lines are jeprof's. Anything else is not
			 * a symbol section. */
			return syntax(r, "unexpected line in symbol section", s, (size_t)(e - s));
		}
	}
	return syntax(r, "symbol section without its closing '---' line", "", 0);
}

int fk_symprof_parse(struct fk_profile *p, const char *data, size_t len,
		     struct fk_err *err)
{
	struct sreader r;
	size_t off = 0;
	int rc;

	memset(&r, 0, sizeof r);
	r.p = p;
	r.err = err;
	r.lineno = 1;
	{
		const char *nl = memchr(data, '\n', len);

		if (len < 10 || memcmp(data, "--- symbol", 10) != 0 || !nl ||
		    (size_t)(nl - data) != 10)
			return fk_err_set(err, FK_ESYNTAX, 1, "bad symbol section header");
		off = (size_t)(nl - data) + 1;
	}
	rc = read_symbols(&r, data + off, len - off, &off);
	free(r.v);
	if (rc < 0)
		return -1;
	off += 11;   /* "--- symbol\n" */
	/* jeprof writes "--- heap" before the dump; accept its absence too. */
	if (len - off >= 9 && memcmp(data + off, "--- heap\n", 9) == 0) {
		off += 9;
		r.lineno++;
	}
	return fk_heapdump_parse_at(p, data + off, len - off, r.lineno + 1, err);
}

/* Writes name with control bytes as spaces; for jeprof's "--"-separated
 * list, a "--" inside a name is broken up so the list stays parseable.
 * Plain runs go out whole: names are most of a symbolized profile. */
static void put_name(FILE *out, const char *s, int jeprof)
{
	for (;;) {
		const char *run = s;
		unsigned char c;

		while ((c = (unsigned char)*s) >= 0x20 && c != 0x7f &&
		       !(jeprof && c == '-' && s[1] == '-'))
			s++;
		fwrite_unlocked(run, 1, (size_t)(s - run), out);
		if (!c)
			return;
		fputs_unlocked(c == '-' ? "- " : " ", out);
		s++;
	}
}

int fk_symprof_write(const struct fk_profile *p, FILE *out, struct fk_err *err)
{
	const char *binary = p->binary;
	size_t i;
	uint32_t j;

	for (i = 0; !binary && i < p->nmaps; i++)
		if (p->maps[i].kind == FK_MAP_FILE)
			binary = p->maps[i].path;
	fputs("--- symbol\n", out);
	if (binary) {
		fputs("binary=", out);
		put_name(out, binary, 0);
		fputc('\n', out);
	}
	fprintf(out, "=flamekit %s allocator-frames=%s\n", FK_VERSION,
		p->allocator_frames_kept ? "kept" : "dropped");
	for (i = 0; i < p->nmodules; i++) {
		if (!p->modules[i].build_id)
			continue;
		fprintf(out, "=build-id %s\t", p->modules[i].build_id);
		put_name(out, p->modules[i].path, 0);
		fputc('\n', out);
	}
	for (i = 0; i < p->nsyms; i++) {
		const struct fk_sym *s = &p->syms[i];

		fprintf(out, "0x%016llx ", (unsigned long long)s->key);
		for (j = s->nframes; j-- > 0;) {
			put_name(out, s->frames[j].name, 1);
			if (j)
				fputs("--", out);
		}
		fprintf(out, "\n=sym 0x%016llx\t%c", (unsigned long long)s->key,
			s->placeholder ? 'm' : 'f');
		for (j = s->nframes; j-- > 0;) {
			const struct fk_frame *f = &s->frames[j];

			fputc('\t', out);
			put_name(out, f->name, 0);
			fputc('\t', out);
			if (f->sysname && f->sysname != f->name && strcmp(f->sysname, f->name))
				put_name(out, f->sysname, 0);
			fputc('\t', out);
			if (f->file)
				put_name(out, f->file, 0);
			fprintf(out, "\t%u", f->line);
		}
		fputc('\n', out);
	}
	fputs("---\n--- heap\n", out);
	if (ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error: %s", strerror(errno));
	return fk_heapdump_write(p, out, err);
}
