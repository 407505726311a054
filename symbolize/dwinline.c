/* SPDX-License-Identifier: MIT */
/* DWARF inline chains and source lines of one unit (DWARF 4 and 5,
 * sections 3.3 "Subroutine and Entry Point Entries" and 6.2 "Line Number
 * Information"). A unit's subprogram and inlined-subroutine ranges are
 * collected in one DIE walk the first time an address falls in it; libdw's
 * dwarf_getscopes instead walks the unit from its root for every address. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "limits.h"
#include "grow.h"
#include "search.h"
#include "dwline_int.h"


static int attr_u32(Dwarf_Die *die, unsigned name, uint32_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0 || w > UINT32_MAX)
		return -1;
	*out = (uint32_t)w;
	return 0;
}

static int walk(struct fk_dwcu *c, Dwarf_Die *die, int depth)
{
	if (depth > FK_MAX_DIE_DEPTH)
		return 0;   /* deeper scopes are ignored, not an error */
	int tag = dwarf_tag(die);
	size_t first = c->nents;
	int record = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
	if (record) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		uint32_t cf = 0, cl = 0;
		if (tag == DW_TAG_inlined_subroutine) {
			attr_u32(die, DW_AT_call_file, &cf);
			attr_u32(die, DW_AT_call_line, &cl);
		}
		while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (fk_reserve((void **)&c->ents, &c->cap, c->nents + 1,
				       sizeof *c->ents, 16) != 0)
				return -1;
			c->ents[c->nents++] = (struct fk_dwent){
				lo, hi, dwarf_dieoffset(die), 0, cf, cl,
				tag == DW_TAG_inlined_subroutine };
			if (tag == DW_TAG_subprogram) {
				if (fk_reserve((void **)&c->subs, &c->subcap, c->nsubs + 1,
					       sizeof *c->subs, 16) != 0)
					return -1;
				c->subs[c->nsubs++] =
					(struct fk_dwsub){ lo, hi, (uint32_t)(c->nents - 1) };
			}
		}
		/* A declaration or abstract instance has no code: its children
		 * (parameters, abstract inline trees) hold none either. */
		if (c->nents == first)
			return 0;
	} else if (depth > 0) {
		switch (tag) {
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			break;
		default:
			return 0;
		}
	}
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (walk(c, &child, depth + 1) != 0)
				return -1;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	for (size_t i = first; i < c->nents && record; i++)
		c->ents[i].end = (uint32_t)c->nents;
	return 0;
}

static int cmp_sub(const void *a, const void *b)
{
	const struct fk_dwsub *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int build(struct fk_dwcu *c)
{
	if (c->built)
		return c->built > 0 ? 0 : -1;
	c->built = -1;
	if (walk(c, &c->die, 0) != 0)
		return -1;
	if (c->nsubs > 1)
		qsort(c->subs, c->nsubs, sizeof *c->subs, cmp_sub);
	c->built = 1;
	return 0;
}

static const char *file_of(struct fk_dwcu *c, uint32_t idx)
{
	if (!c->files_tried) {
		c->files_tried = 1;
		if (dwarf_getsrcfiles(&c->die, &c->files, &c->nfiles) != 0)
			c->files = NULL;
	}
	if (!c->files || idx >= c->nfiles)
		return NULL;
	return dwarf_filesrc(c->files, idx, NULL, NULL);
}

static const char *str_attr(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(die, name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

/* The names of the DIE at off in c's unit, which is in the .dwo file's
 * DWARF for a split unit, not in the module's. */
static void names(struct fk_dwcu *c, Dwarf_Off off, struct fk_dwframe *f)
{
	Dwarf_Die die;
	f->name = f->linkage = NULL;
	if (!dwarf_offdie(dwarf_cu_getdwarf(c->die.cu), off, &die))
		return;
	f->name = str_attr(&die, DW_AT_name);
	f->linkage = str_attr(&die, DW_AT_linkage_name);
	if (!f->linkage)
		f->linkage = str_attr(&die, DW_AT_MIPS_linkage_name);
}

static void line_of(struct fk_dwcu *c, uint64_t a, const char **file, uint32_t *line)
{
	*file = NULL;
	*line = 0;
	Dwarf_Line *l = dwarf_getsrc_die(&c->die, a);
	int ln;
	if (!l)
		return;
	*file = dwarf_linesrc(l, NULL, NULL);
	if (dwarf_lineno(l, &ln) == 0 && ln > 0)
		*line = (uint32_t)ln;
}

int fk_dwline_lookup(struct fk_dwline *d, uint64_t addr,
		     struct fk_dwframe *out, int max)
{
	uint64_t a = addr - d->bias;
	struct fk_dwcu *c = fk_dwunits_find(d, a);
	if (!c || build(c) != 0 || max <= 0)
		return 0;
	/* The subprogram holding a: last range starting at or before it. */
	size_t lo = fk_count_le(c->subs, c->nsubs, sizeof *c->subs,
				offsetof(struct fk_dwsub, lo), a);
	const struct fk_dwent *top = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++) {
		if (c->subs[i].hi > a) {
			top = &c->ents[c->subs[i].ent];
			break;
		}
	}
	if (!top)
		return 0;
	/* The chain, outermost first: in pre-order every holder of a in the
	 * subtree is an ancestor of the next one. */
	const struct fk_dwent *chain[FK_MAX_INLINE];
	int n = 0;
	chain[n++] = top;
	uint32_t ti = (uint32_t)(top - c->ents);
	for (uint32_t i = ti + 1; i < top->end && n < FK_MAX_INLINE; i++) {
		const struct fk_dwent *e = &c->ents[i];
		if (e->inlined && e->lo <= a && a < e->hi)
			chain[n++] = e;
	}
	if (n > max)
		n = max;
	/* Innermost first: frame 0 takes the line table's file:line, each
	 * outer frame the call site recorded on the frame inside it. */
	for (int k = 0; k < n; k++) {
		const struct fk_dwent *e = chain[n - 1 - k];
		names(c, e->die, &out[k]);
		if (k == 0) {
			line_of(c, a, &out[k].file, &out[k].line);
		} else {
			const struct fk_dwent *inner = chain[n - k];
			out[k].file = file_of(c, inner->call_file);
			out[k].line = inner->call_line;
		}
	}
	return n;
}


int fk_dwline_src(struct fk_dwline *d, uint64_t addr, const char **file,
		  uint32_t *line)
{
	uint64_t a = addr - d->bias;
	struct fk_dwcu *c = fk_dwunits_find(d, a);
	if (!c)
		return -1;
	line_of(c, a, file, line);
	return *file ? 0 : -1;
}

