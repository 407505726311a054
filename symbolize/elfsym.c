/* SPDX-License-Identifier: MIT */
/* A module's function symbols (ELF .symtab, or .dynsym plus the
 * .gnu_debugdata minidebuginfo) as one sorted table, built once per module,
 * searched by binary search. libdwfl's own dwfl_module_addrinfo scans the
 * whole table on every call, which is what makes naive symbolizers slow. */
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/* Preference among aliases at the same address: a global name over a weak
 * one over a local one, and a name without reserved leading underscores or
 * clone suffixes over one with them (malloc over __libc_malloc). */
static int rank_of(int bind, const char *name)
{
	int r;
	switch (bind) {
	case STB_GLOBAL: r = 130; break;
	case STB_WEAK: r = 120; break;
	default: r = 110; break;
	}
	if (name[0] != '_')
		r += 4;
	else if (name[1] != '_')
		r += 2;
	size_t len = strlen(name);
	if (fk_symname_baselen(name, len) == len)
		r += 1;
	return r;
}

static int cmp_func(const void *a, const void *b)
{
	const struct fk_func *x = a, *y = b;
	if (x->span.lo != y->span.lo)
		return x->span.lo < y->span.lo ? -1 : 1;
	if (x->span.hi != y->span.hi)
		return x->span.hi > y->span.hi ? -1 : 1;      /* wider first */
	return 0;
}

/* Whether alias x is preferred to y (same range): higher rank, then the
 * smaller name, so the choice does not depend on symbol table order. */
static int better(const struct fk_func *x, const struct fk_func *y)
{
	if (x->rank != y->rank)
		return x->rank > y->rank;
	return strcmp(x->name, y->name) < 0;
}

int fk_functab_build(struct fk_functab *t, Dwfl_Module *mod)
{
	t->v = NULL;
	t->n = 0;
	int nsym = dwfl_module_getsymtab(mod);
	if (nsym <= 0)
		return 0;
	struct fk_func *v = malloc((size_t)nsym * sizeof *v);
	if (!v)
		return -1;
	size_t n = 0;
	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr,
							   &shndx, NULL, NULL);
		if (!name || !name[0] || sym.st_size == 0)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (shndx == SHN_UNDEF || shndx == (GElf_Word)-1)
			continue;
		if (addr + sym.st_size < addr)
			continue;
		v[n].span.lo = addr;
		v[n].span.hi = addr + sym.st_size;
		v[n].name = name;
		/* Binding is all the rank needs until aliases meet. */
		v[n].rank = GELF_ST_BIND(sym.st_info);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_func);
	/* Keep one entry per [lo, hi): the preferred alias. Ranks are
	 * computed only where aliases share a range. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && v[k - 1].span.lo == v[i].span.lo &&
		    v[k - 1].span.hi == v[i].span.hi) {
			if (v[k - 1].rank < 100)
				v[k - 1].rank = rank_of(v[k - 1].rank, v[k - 1].name);
			v[i].rank = rank_of(v[i].rank, v[i].name);
			if (better(&v[i], &v[k - 1]))
				v[k - 1] = v[i];
			continue;
		}
		v[k++] = v[i];
	}
	fk_span_index(v, k, sizeof *v);
	t->v = v;
	t->n = k;
	return 0;
}

const struct fk_func *fk_functab_find(const struct fk_functab *t, uint64_t addr)
{
	/* Among ranges with the same start the wider sorts first, so the
	 * latest-start holder found is also the narrowest: the innermost. */
	return fk_span_find(t->v, t->n, sizeof *t->v, addr);
}

void fk_functab_release(struct fk_functab *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
