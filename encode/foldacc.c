/* SPDX-License-Identifier: MIT */
/* Folded stacks ("root;caller;leaf VALUE", the format of flamegraph.pl) built
 * one stack at a time, merged by line, written sorted bytewise. Used by
 * to-folded and from-pprof, so both escape, merge and order alike. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "limits.h"
#include "strtab.h"

struct entry {
	uint64_t hash;
	size_t off;                    /* into pool */
	size_t len;
	int64_t value;
};

struct fk_foldacc {
	char *cur;                     /* the stack being built */
	size_t curlen, curcap;
	size_t curframes;
	char *pool;                    /* all distinct lines, back to back */
	size_t poollen, poolcap;
	size_t outlen;                 /* the output's bound so far */
	struct entry *ents;
	size_t nents, entcap;
	uint32_t *tab;                 /* indices into ents; UINT32_MAX = empty */
	size_t tabcap;
	/* Multi-column lines: columns 1..nx of entry i at xv[i * nx]. */
	size_t nx;
	int64_t *xv;
	const int64_t *curx;           /* the extra values of the stack being ended */
};

int fk_foldacc_columns(struct fk_foldacc *acc, size_t ncols)
{
	if (acc->nents || ncols < 1 || ncols > FK_MAX_COLUMNS)
		return -1;
	acc->nx = ncols - 1;
	return 0;
}

int fk_foldacc_endv(struct fk_foldacc *acc, const int64_t *values, struct fk_err *err)
{
	int rc;

	acc->curx = values + 1;
	rc = fk_foldacc_end(acc, values[0], err);
	acc->curx = NULL;
	return rc;
}

struct fk_foldacc *fk_foldacc_new(void)
{
	return calloc(1, sizeof(struct fk_foldacc));
}

void fk_foldacc_free(struct fk_foldacc *acc)
{
	if (!acc)
		return;
	free(acc->cur);
	free(acc->pool);
	free(acc->ents);
	free(acc->tab);
	free(acc->xv);
	free(acc);
}

void fk_foldacc_begin(struct fk_foldacc *acc)
{
	acc->curlen = 0;
	acc->curframes = 0;
}

void fk_foldacc_escape(char *dst, const char *name, size_t n)
{
	size_t i;

	/* The escaping rule of fk_folded_put_frame (core/folded.c), applied
	 * into memory because lines are merged before they are written. */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = ' ';
		dst[i] = (char)c;
	}
}

/* Makes room for a separator and n bytes; returns where they go, or NULL
 * with err. */
static char *append(struct fk_foldacc *acc, size_t n, struct fk_err *err)
{
	char *d;

	if (n > FK_MAX_FOLDED_LINE - acc->curlen - 1 || acc->curlen >= FK_MAX_FOLDED_LINE)
		return fk_err_set(err, FK_ELIMIT, 0, "folded line longer than %zu bytes",
				  (size_t)FK_MAX_FOLDED_LINE), NULL;
	if (fk_reserve((void **)&acc->cur, &acc->curcap, acc->curlen + n + 1, 1, 4096) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory"), NULL;
	d = acc->cur + acc->curlen;
	if (acc->curframes++)
		*d++ = ';';
	acc->curlen = (size_t)(d - acc->cur) + n;
	return d;
}

int fk_foldacc_frame(struct fk_foldacc *acc, const char *name, struct fk_err *err)
{
	size_t n = strlen(name);
	char *d = append(acc, n, err);

	if (!d)
		return -1;
	fk_foldacc_escape(d, name, n);
	return 0;
}

int fk_foldacc_frames(struct fk_foldacc *acc, const char *s, size_t n, struct fk_err *err)
{
	char *d = append(acc, n, err);

	if (!d)
		return -1;
	memcpy(d, s, n);
	return 0;
}

static int tab_grow(struct fk_foldacc *acc)
{
	size_t ncap = acc->tabcap ? acc->tabcap * 2 : 1024, i;
	uint32_t *nt = malloc(ncap * sizeof *nt);

	if (!nt)
		return -1;
	memset(nt, 0xff, ncap * sizeof *nt);
	for (i = 0; i < acc->nents; i++) {
		size_t j = (size_t)acc->ents[i].hash & (ncap - 1);

		while (nt[j] != UINT32_MAX)
			j = (j + 1) & (ncap - 1);
		nt[j] = (uint32_t)i;
	}
	free(acc->tab);
	acc->tab = nt;
	acc->tabcap = ncap;
	return 0;
}

/* Adds the extra columns of the stack being ended to entry i. */
static int add_extra(struct fk_foldacc *acc, size_t i, struct fk_err *err)
{
	size_t c;

	for (c = 0; c < acc->nx && acc->curx; c++)
		if (__builtin_add_overflow(acc->xv[i * acc->nx + c], acc->curx[c],
					   &acc->xv[i * acc->nx + c]))
			return fk_err_set(err, FK_ELIMIT, 0,
					  "total of one stack overflows 64 bits");
	return 0;
}

int fk_foldacc_end(struct fk_foldacc *acc, int64_t value, struct fk_err *err)
{
	uint64_t h;
	size_t j;
	struct entry *e;

	if (acc->curframes == 0 && fk_foldacc_frame(acc, FK_ENC_NO_STACK, err) < 0)
		return -1;
	h = fk_hash(acc->cur, acc->curlen);
	if ((acc->nents + 1) * 2 > acc->tabcap && tab_grow(acc) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (j = (size_t)h & (acc->tabcap - 1); acc->tab[j] != UINT32_MAX;
	     j = (j + 1) & (acc->tabcap - 1)) {
		e = &acc->ents[acc->tab[j]];
		if (e->hash == h && e->len == acc->curlen &&
		    memcmp(acc->pool + e->off, acc->cur, e->len) == 0) {
			if (__builtin_add_overflow(e->value, value, &e->value))
				return fk_err_set(err, FK_ELIMIT, 0,
						  "total of one stack overflows 64 bits");
			return add_extra(acc, (size_t)(e - acc->ents), err);
		}
	}
	if (acc->nents >= UINT32_MAX - 1)
		return fk_err_set(err, FK_ELIMIT, 0, "too many distinct stacks");
	/* Each line as written: its stack, a space, at most 20 digits and a
	 * minus sign, a newline. */
	if (acc->curlen + 23 > FK_MAX_FOLDED_OUTPUT - acc->outlen)
		return fk_err_set(err, FK_ELIMIT, 0, "folded output larger than %zu bytes",
				  (size_t)FK_MAX_FOLDED_OUTPUT);
	acc->outlen += acc->curlen + 23;
	if (acc->nents == acc->entcap) {
		size_t ncap = fk_grow_cap(acc->entcap, acc->nents + 1, sizeof *acc->ents, 1024);
		struct entry *ne = ncap ? fk_resize(acc->ents, ncap, ncap, sizeof *ne) : NULL;

		if (!ne)
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		acc->ents = ne;
		if (acc->nx) {
			int64_t *nx = ncap <= SIZE_MAX / acc->nx
				? fk_resize(acc->xv, ncap * acc->nx, ncap * acc->nx, sizeof *nx) : NULL;
			if (!nx)
				return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			acc->xv = nx;
		}
		acc->entcap = ncap;
	}
	if (fk_reserve((void **)&acc->pool, &acc->poolcap, acc->poollen + acc->curlen, 1, 4096) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	e = &acc->ents[acc->nents];
	e->hash = h;
	e->off = acc->poollen;
	e->len = acc->curlen;
	e->value = value;
	if (acc->curlen)
		memcpy(acc->pool + acc->poollen, acc->cur, acc->curlen);
	acc->poollen += acc->curlen;
	acc->tab[j] = (uint32_t)acc->nents++;
	if (acc->nx)
		memset(acc->xv + (acc->nents - 1) * acc->nx, 0, acc->nx * sizeof *acc->xv);
	return add_extra(acc, acc->nents - 1, err);
}

/* glibc's qsort_r (with a context argument), since the hook may encode
 * in several threads at once. Indices are sorted, not the entries, so the
 * sort moves 4 bytes an element. */
static int cmp_ix(const void *a, const void *b, void *ctx)
{
	const struct fk_foldacc *acc = ctx;
	const struct entry *x = &acc->ents[*(const uint32_t *)a];
	const struct entry *y = &acc->ents[*(const uint32_t *)b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(acc->pool + x->off, acc->pool + y->off, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

int fk_foldacc_write(struct fk_foldacc *acc, FILE *out, struct fk_err *err)
{
	uint32_t *order;
	size_t i;

	order = malloc((acc->nents ? acc->nents : 1) * sizeof *order);
	if (!order)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (i = 0; i < acc->nents; i++)
		order[i] = (uint32_t)i;
	if (acc->nents)
		qsort_r(order, acc->nents, sizeof *order, cmp_ix, acc);
	for (i = 0; i < acc->nents; i++) {
		const struct entry *e = &acc->ents[order[i]];
		const int64_t *x = acc->nx ? acc->xv + (size_t)order[i] * acc->nx : NULL;
		size_t c, zero = e->value == 0;

		for (c = 0; c < acc->nx; c++)
			zero &= x[c] == 0;
		if (zero)
			continue;
		fwrite(acc->pool + e->off, 1, e->len, out);
		fprintf(out, " %lld", (long long)e->value);
		for (c = 0; c < acc->nx; c++)
			fprintf(out, " %lld", (long long)x[c]);
		fputc('\n', out);
	}
	free(order);
	if (ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error");
	return 0;
}

void fk_namecache_init(struct fk_namecache *c)
{
	memset(c, 0, sizeof *c);
	fk_u64map_init(&c->ix);
}

void fk_namecache_release(struct fk_namecache *c)
{
	fk_u64map_release(&c->ix);
	free(c->off);
	free(c->len);
	free(c->pool);
	memset(c, 0, sizeof *c);
}

const char *fk_namecache_get(const struct fk_namecache *c, uint64_t key, size_t *n)
{
	uint32_t i = fk_u64map_get(&c->ix, key);

	if (i == UINT32_MAX)
		return NULL;
	*n = c->len[i];
	return c->pool + c->off[i];
}

/* Room for at most n more bytes at the pool's end, for the next entry;
 * NULL when out of memory. */
static char *room(struct fk_namecache *c, size_t n)
{
	if (n > SIZE_MAX - c->poollen || fk_reserve((void **)&c->pool, &c->poolcap, c->poollen + n, 1, 4096) < 0)
		return NULL;
	return c->pool + c->poollen;
}

/* Makes the used bytes written into the room the text of key (absent
 * until now). Returns 0, or -1 (out of memory). */
static int commit(struct fk_namecache *c, uint64_t key, size_t used)
{
	if (c->n == c->cap) {
		size_t ncap = fk_grow_cap(c->cap, c->n + 1, sizeof *c->off, 1024);
		size_t *no, *nl;

		if (!ncap || ncap >= UINT32_MAX)
			return -1;
		no = fk_resize(c->off, ncap, ncap, sizeof *no);
		if (!no)
			return -1;
		c->off = no;
		nl = fk_resize(c->len, ncap, ncap, sizeof *nl);
		if (!nl)
			return -1;
		c->len = nl;
		c->cap = ncap;
	}
	c->off[c->n] = c->poollen;
	c->len[c->n] = used;
	c->poollen += used;
	if (fk_u64map_put(&c->ix, key, (uint32_t)c->n) < 0)
		return -1;
	c->n++;
	return 0;
}

/* Makes the cache entry of key from src (fk_namecache_text). */
static int fill(struct fk_namecache *c, uint64_t key, const struct fk_namesrc *src)
{
	size_t total = 0, used = 0, j, nn = src->open(src->ctx);
	const char *name;
	char buf[64], *d;

	for (j = 0; j < nn; j++)
		if ((name = src->name(src->ctx, j)))
			total += strlen(name) + 1;
	if (total == 0) {
		/* No named frame: the address stands for the function. */
		name = src->addr(src->ctx, buf, sizeof buf);
		total = strlen(name);
		if (!(d = room(c, total)))
			return -1;
		memcpy(d, name, total);
		return commit(c, key, total);
	}
	if (!(d = room(c, total)))
		return -1;
	for (j = nn; j-- > 0;) {
		size_t n;

		if (!(name = src->name(src->ctx, j)))
			continue;
		if (used)
			d[used++] = ';';
		n = strlen(name);
		fk_foldacc_escape(d + used, name, n);
		used += n;
	}
	return commit(c, key, used);
}

const char *fk_namecache_text(struct fk_namecache *c, uint64_t key,
			      const struct fk_namesrc *src, size_t *n)
{
	const char *text = fk_namecache_get(c, key, n);

	if (text || fill(c, key, src) < 0)
		return text;
	return fk_namecache_get(c, key, n);
}
