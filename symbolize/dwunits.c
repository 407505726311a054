/* SPDX-License-Identifier: MIT */
/* Which unit of a module's DWARF holds an address: by .debug_aranges
 * (DWARF 5, 6.1.2 "Lookup by Address"), read with libdw's dwarf_getaranges,
 * so that only a few units of a big file are read; else by the ranges of
 * every unit, walked once. dwarf_getaranges measured no slower than our own
 * reader of the section on the cc1 pipeline (bench/README.md, issue 13),
 * for 2 MB more peak memory. Split DWARF (-gsplit-dwarf): a skeleton unit
 * stands for its .dwo file's unit. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dwarf.h>

#include "limits.h"
#include "grow.h"
#include "dwline_int.h"

/* A skeleton unit's DW_AT_dwo_name (DWARF 5; DW_AT_GNU_dwo_name before). */
static const char *dwo_name(Dwarf_Die *skel)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	if (dwarf_attr(skel, DW_AT_dwo_name, &a) || dwarf_attr(skel, DW_AT_GNU_dwo_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "?";
}

/* Whether some path libdw would open for the .dwo file of skeleton unit
 * skel (elfutils' __libdw_find_split_unit: the name as is if absolute,
 * else beside the ELF file, then under DW_AT_comp_dir) names something
 * other than a regular file: libdw opens it without O_NONBLOCK, so a FIFO
 * there would block for ever. */
static int dwo_unsafe(const struct fk_dwline *d, Dwarf_Die *skel)
{
	Dwarf_Attribute a;
	const char *name = NULL, *comp = NULL;
	if (dwarf_attr(skel, DW_AT_dwo_name, &a) || dwarf_attr(skel, DW_AT_GNU_dwo_name, &a))
		name = dwarf_formstring(&a);
	if (!name)
		return 0;
	if (dwarf_attr(skel, DW_AT_comp_dir, &a))
		comp = dwarf_formstring(&a);
	char path[FK_MAX_PATH];
	for (int k = 0; k < 2; k++) {
		if (name[0] == '/' && k == 0)
			snprintf(path, sizeof path, "%s", name);
		else if (name[0] == '/')
			break;
		else if (k == 0)
			snprintf(path, sizeof path, "%s/%s", d->dir ? d->dir : ".", name);
		else if (!comp)
			break;
		else if (comp[0] == '/')
			snprintf(path, sizeof path, "%s/%s", comp, name);
		else
			snprintf(path, sizeof path, "%s/%s/%s", d->dir ? d->dir : ".", comp, name);
		struct stat st;
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return 1;
	}
	return 0;
}

/* The split unit DIE of cudie in *subdie when it is a skeleton whose .dwo
 * libdw may look for; NULL otherwise (add_unit then notes it missing). */
static Dwarf_Die *split_die(struct fk_dwline *d, Dwarf_Die *cudie, uint8_t type,
			    Dwarf_Die *subdie)
{
	if (type != DW_UT_skeleton)
		return NULL;
	if (dwo_unsafe(d, cudie)) {
		d->dwo_refused = 1;
		return NULL;
	}
	if (dwarf_cu_info(cudie->cu, NULL, NULL, NULL, subdie, NULL, NULL, NULL) != 0)
		return NULL;
	return subdie;
}

/* The index in d->cus of the unit whose DIE is cudie (a skeleton's split
 * unit subdie, when libdw found its .dwo), added when first met; -1 when
 * out of memory, -2 when the unit is not one with code. A skeleton unit
 * (split DWARF, -gsplit-dwarf) holds the ranges and lines; its split unit
 * in the .dwo file holds the subprograms. A skeleton whose .dwo is missing
 * is kept as it is: it gives lines only. */
static int add_unit(struct fk_dwline *d, Dwarf_Die *cudie, uint8_t type,
		    Dwarf_Die *subdie)
{
	uint32_t i;
	int tag = dwarf_tag(cudie);
	if (type == DW_UT_compile ? tag != DW_TAG_compile_unit :
	    type == DW_UT_skeleton ? tag != DW_TAG_skeleton_unit : 1)
		return -2;
	Dwarf_Off key = dwarf_dieoffset(cudie);
	if ((i = fk_u64map_get(&d->byoff, key)) != UINT32_MAX)
		return (int)i;
	if (d->ncus >= INT32_MAX ||
	    fk_reserve((void **)&d->cus, &d->cucap, d->ncus + 1, sizeof *d->cus, 16) != 0 ||
	    fk_u64map_add(&d->byoff, key, (uint32_t)d->ncus, NULL) < 0)
		return -1;
	struct fk_dwcu *c = &d->cus[d->ncus];
	memset(c, 0, sizeof *c);
	c->die = *cudie;
	if (type == DW_UT_skeleton && subdie && dwarf_tag(subdie) == DW_TAG_compile_unit)
		c->die = *subdie;
	else if (type == DW_UT_skeleton && !d->missing_dwo)
		d->missing_dwo = dwo_name(cudie);
	return (int)d->ncus++;
}

/* Builds the sorted table of every unit's address ranges; 0 or -1
 * (ENOMEM). Units met before through .debug_aranges are reused. */
static int index_units(struct fk_dwline *d)
{
	Dwarf *dw = d->dw;
	size_t rgcap = 0;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	d->indexed = 1;
	while (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) == 0) {
		cu = next;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		int ix = -2;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (ix == -2)
				ix = add_unit(d, &cudie, type,
					      split_die(d, &cudie, type, &subdie));
			if (ix == -2)
				break;
			if (ix < 0 ||
			    fk_reserve((void **)&d->rg, &rgcap, d->nrg + 1, sizeof *d->rg, 16) != 0)
				return -1;
			d->rg[d->nrg++] = (struct fk_dwcurange){ { lo, hi, 0 }, (uint32_t)ix };
		}
	}
	if (d->nrg > 1)
		qsort(d->rg, d->nrg, sizeof *d->rg, fk_span_cmp);
	fk_span_index(d->rg, d->nrg, sizeof *d->rg);
	return 0;
}

/* The unit .debug_aranges gives for a: -1 when it gives none. libdw's
 * dwarf_getaranges reads the whole table once (2-10 ms on glibc's debug
 * file); a table it rejects is no table, and lookups walk the units. */
static int unit_by_aranges(struct fk_dwline *d, uint64_t a)
{
	if (!d->ar_loaded) {
		d->ar_loaded = 1;
		if (dwarf_getaranges(d->dw, &d->ar, &d->nar) != 0) {
			d->ar = NULL;
			d->nar = 0;
		}
	}
	Dwarf_Arange *r = d->ar ? dwarf_getarange_addr(d->ar, a) : NULL;
	Dwarf_Off die;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	if (!r || dwarf_getarangeinfo(r, NULL, NULL, &die) != 0 ||
	    !dwarf_offdie(d->dw, die, &cudie) ||
	    dwarf_cu_info(cudie.cu, NULL, &type, NULL, NULL, NULL, NULL, NULL) != 0)
		return -1;
	int ix = add_unit(d, &cudie, type, split_die(d, &cudie, type, &subdie));
	return ix >= 0 ? ix : -1;
}

/* The unit holding DWARF address a: by .debug_aranges when it has a, else
 * by the ranges of every unit, walked once. */
struct fk_dwcu *fk_dwunits_find(struct fk_dwline *d, uint64_t a)
{
	if (!d->indexed) {
		int ix = unit_by_aranges(d, a);
		if (ix >= 0)
			return &d->cus[ix];
		if (index_units(d) != 0)
			return NULL;
	}
	const struct fk_dwcurange *r = fk_span_find(d->rg, d->nrg, sizeof *d->rg, a);
	return r ? &d->cus[r->cu] : NULL;
}

int fk_dwline_dwo_refused(const struct fk_dwline *d)
{
	return d->dwo_refused;
}

const char *fk_dwline_missing_dwo(const struct fk_dwline *d)
{
	return d->missing_dwo;
}

