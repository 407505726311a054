/* DWARF inline chains and source lines (DWARF 4 and 5, sections 3.3
 * "Subroutine and Entry Point Entries" and 6.2 "Line Number Information").
 * A sorted table of unit address ranges is built once per module; a unit's
 * subprogram and inlined-subroutine ranges are collected in one DIE walk the
 * first time an address falls in it. libdw's dwarf_getscopes instead walks
 * the unit from its root for every address. */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "limits.h"
#include "grow.h"
#include "search.h"
#include "symbolize_int.h"

/* One address range of a subprogram or inlined subroutine, in DIE walk
 * (pre-)order, so that every entry's subtree is ents[i + 1 .. end). */
struct ent {
	uint64_t lo, hi;
	Dwarf_Off die;
	uint32_t end;
	uint32_t call_file, call_line;
	unsigned inlined : 1;
};

struct sub {                           /* a subprogram range */
	uint64_t lo, hi;
	uint32_t ent;
};

struct cu {
	Dwarf_Die die;
	int built;                     /* 0 not yet, 1 built, -1 failed */
	struct ent *ents;
	size_t nents, cap;
	struct sub *subs;
	size_t nsubs, subcap;
	Dwarf_Files *files;
	size_t nfiles;
	int files_tried;
};

struct curange {
	struct fk_span span;
	uint32_t cu;
};

/* One address range of .debug_aranges and the unit (header offset) it
 * belongs to. */
struct arange {
	struct fk_span span;
	Dwarf_Off unit;
};

struct fk_dwline {
	Dwarf *dw;
	Elf *elf;                      /* our own handle, or NULL (libdwfl's) */
	int fd;
	struct fk_zsect *z;            /* compressed sections lookups read */
	size_t nz;
	uint64_t bias;                 /* module address = DWARF address + bias */
	struct cu *cus;                /* units met so far */
	size_t ncus, cucap;
	struct fk_u64map byoff;        /* unit DIE offset -> index in cus */
	struct arange *ar;             /* .debug_aranges, sorted */
	size_t nar;
	int ar_loaded;
	int indexed;                   /* every unit's ranges are in rg */
	struct curange *rg;
	size_t nrg;
	const char *missing_dwo;       /* a skeleton's .dwo libdw did not find */
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	return fk_reserve(v, cap, need, size, 16);
}

/* Debug sections a lookup reads; libdw decompresses every compressed
 * section it knows at open, and location lists alone are a seventh of
 * glibc's debug file. */
static int wanted(const char *name)
{
	static const char *const keep[] = {
		"info", "abbrev", "line", "line_str", "str", "str_offsets",
		"rnglists", "ranges", "addr", "aranges",
	};
	if (strncmp(name, ".debug_", 7) == 0)
		name += 7;
	else if (strncmp(name, ".zdebug_", 8) == 0)
		name += 8;
	else
		return 1;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		if (strcmp(name, keep[i]) == 0)
			return 1;
	return 0;
}

/* Remembers a compressed section for inflating; 0 or -1 (ENOMEM). */
static int add_zsect(struct fk_dwline *d, Elf_Scn *scn, size_t *cap)
{
	struct fk_zsect z;
	if (!fk_zsect_find(d->elf, scn, &z))
		return 0;
	if (grow((void **)&d->z, cap, d->nz + 1, sizeof *d->z) != 0)
		return -1;
	d->z[d->nz++] = z;
	return 0;
}

/* Opens path privately, hides the debug sections lookups never read (as
 * SHT_NOBITS, which libdw skips) and lists the compressed ones it reads. */
struct fk_dwline *fk_dwline_open(const char *path, uint64_t bias)
{
	size_t shstrndx, zcap = 0;
	struct fk_dwline *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->bias = bias;
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		goto fail;
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(d->elf, &shstrndx) != 0)
		goto fail;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(d->elf, shstrndx, sh.sh_name)))
			continue;
		if (wanted(name)) {
			if (strncmp(name, ".debug_", 7) == 0 &&
			    add_zsect(d, scn, &zcap) != 0)
				goto fail;
			continue;
		}
		sh.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &sh);
	}
	return d;
fail:
	fk_dwline_free(d);
	return NULL;
}

size_t fk_dwline_nsections(const struct fk_dwline *d)
{
	return d->nz;
}

size_t fk_dwline_section_size(const struct fk_dwline *d, size_t i)
{
	return d->z[i].dstlen;
}

void fk_dwline_inflate(struct fk_dwline *d, size_t i)
{
	fk_zsect_inflate(&d->z[i]);
}

int fk_dwline_begin(struct fk_dwline *d)
{
	/* A section that could not be inflated here is left to libdw. */
	for (size_t i = 0; i < d->nz; i++) {
		fk_zsect_inflate(&d->z[i]);
		fk_zsect_install(d->elf, &d->z[i]);
	}
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	return d->dw ? 0 : -1;
}

struct fk_dwline *fk_dwline_new(const char *path, uint64_t bias, Dwfl_Module *mod)
{
	if (path) {
		struct fk_dwline *d = fk_dwline_open(path, bias);
		if (d && fk_dwline_begin(d) != 0) {
			fk_dwline_free(d);
			d = NULL;
		}
		return d;
	}
	struct fk_dwline *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->fd = -1;
	Dwarf_Addr dwbias = bias;
	d->dw = dwfl_module_getdwarf(mod, &dwbias);
	d->bias = dwbias;
	if (!d->dw) {
		fk_dwline_free(d);
		return NULL;
	}
	return d;
}

/* A skeleton unit's DW_AT_dwo_name (DWARF 5; DW_AT_GNU_dwo_name before). */
static const char *dwo_name(Dwarf_Die *skel)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	if (dwarf_attr(skel, DW_AT_dwo_name, &a) || dwarf_attr(skel, DW_AT_GNU_dwo_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "?";
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
	    grow((void **)&d->cus, &d->cucap, d->ncus + 1, sizeof *d->cus) != 0 ||
	    fk_u64map_add(&d->byoff, key, (uint32_t)d->ncus, NULL) < 0)
		return -1;
	struct cu *c = &d->cus[d->ncus];
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
	while (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, &subdie) == 0) {
		cu = next;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		int ix = -2;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (ix == -2)
				ix = add_unit(d, &cudie, type, &subdie);
			if (ix == -2)
				break;
			if (ix < 0 ||
			    grow((void **)&d->rg, &rgcap, d->nrg + 1, sizeof *d->rg) != 0)
				return -1;
			d->rg[d->nrg++] = (struct curange){ { lo, hi, 0 }, (uint32_t)ix };
		}
	}
	if (d->nrg > 1)
		qsort(d->rg, d->nrg, sizeof *d->rg, fk_span_cmp);
	fk_span_index(d->rg, d->nrg, sizeof *d->rg);
	return 0;
}

/* An n-byte (2, 4 or 8) unsigned field in the host's byte order. */
static uint64_t get_uint(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	if (n == 8) {
		memcpy(&v, p, 8);
	} else if (n == 4) {
		uint32_t w;
		memcpy(&w, p, 4);
		v = w;
	} else {
		uint16_t h;
		memcpy(&h, p, 2);
		v = h;
	}
	return v;
}

/* Reads .debug_aranges (DWARF 5, 6.1.2 "Lookup by Address"; versions 2-5
 * share its layout) into d->ar; with any doubt about the section (other
 * byte order, segments, bad lengths) the table stays empty and lookups
 * walk the units. 0, or -1 when out of memory (the table is left empty
 * then too). */
static int load_aranges(struct fk_dwline *d)
{
	d->ar_loaded = 1;
	Elf *elf = dwarf_getelf(d->dw);
	size_t shstrndx;
	const unsigned char *id = elf ? (const unsigned char *)elf_getident(elf, NULL) : NULL;
	const uint16_t one = 1;
	int host = *(const unsigned char *)&one == 1 ? ELFDATA2LSB : ELFDATA2MSB;
	if (!id || id[EI_DATA] != host || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    !(sh.sh_flags & SHF_COMPRESSED) &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, ".debug_aranges") == 0) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!data || !data->d_buf)
		return 0;
	const unsigned char *sec = data->d_buf, *p = sec, *end = sec + data->d_size;
	size_t cap = 0;
	int rc = 0;
	while ((size_t)(end - p) >= 4) {
		const unsigned char *set = p, *q = p + 4;
		uint64_t len = get_uint(p, 4);
		size_t offsz = 4;
		if (len == 0xffffffff) {
			if ((size_t)(end - q) < 8)
				goto bad;
			len = get_uint(q, 8);
			q += 8;
			offsz = 8;
		} else if (len >= 0xfffffff0) {
			goto bad;
		}
		if (len > (uint64_t)(end - q))
			goto bad;
		const unsigned char *send = q + len;
		if ((size_t)(send - q) < 2 + offsz + 2)
			goto bad;
		uint64_t version = get_uint(q, 2), unit = get_uint(q + 2, offsz);
		size_t asz = q[2 + offsz], segsz = q[3 + offsz];
		q += 4 + offsz;
		if (version < 2 || version > 5 || segsz != 0 || (asz != 4 && asz != 8))
			goto bad;
		/* Tuples start at a multiple of twice the address size. */
		size_t skew = (size_t)(q - set) % (2 * asz);
		if (skew)
			q += 2 * asz - skew;
		while (q <= send && (size_t)(send - q) >= 2 * asz) {
			uint64_t lo = get_uint(q, asz), n = get_uint(q + asz, asz);
			q += 2 * asz;
			if (lo == 0 && n == 0)
				break;
			if (n == 0 || lo + n < lo)
				continue;
			if (grow((void **)&d->ar, &cap, d->nar + 1, sizeof *d->ar) != 0) {
				rc = -1;
				goto bad;
			}
			d->ar[d->nar++] = (struct arange){ { lo, lo + n, 0 }, unit };
		}
		p = send;
	}
	if (d->nar > 1)
		qsort(d->ar, d->nar, sizeof *d->ar, fk_span_cmp);
	fk_span_index(d->ar, d->nar, sizeof *d->ar);
	return 0;
bad:
	free(d->ar);
	d->ar = NULL;
	d->nar = 0;
	return rc;
}

/* The unit .debug_aranges gives for a: -1 when it gives none (or out of
 * memory: the caller walks the units then, which reports it). */
static int unit_by_aranges(struct fk_dwline *d, uint64_t a)
{
	if (!d->ar_loaded && load_aranges(d) != 0)
		return -1;
	const struct arange *r = fk_span_find(d->ar, d->nar, sizeof *d->ar, a);
	Dwarf_Off next;
	size_t hsize;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	if (!r || dwarf_next_unit(d->dw, r->unit, &next, &hsize, NULL, NULL, NULL,
				  NULL, NULL, NULL) != 0 ||
	    !dwarf_offdie(d->dw, r->unit + hsize, &cudie) ||
	    dwarf_cu_info(cudie.cu, NULL, &type, NULL, &subdie, NULL, NULL, NULL) != 0)
		return -1;
	int ix = add_unit(d, &cudie, type, &subdie);
	return ix >= 0 ? ix : -1;
}

static int attr_u32(Dwarf_Die *die, unsigned name, uint32_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0 || w > UINT32_MAX)
		return -1;
	*out = (uint32_t)w;
	return 0;
}

static int walk(struct cu *c, Dwarf_Die *die, int depth)
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
			if (grow((void **)&c->ents, &c->cap, c->nents + 1, sizeof *c->ents) != 0)
				return -1;
			c->ents[c->nents++] = (struct ent){
				lo, hi, dwarf_dieoffset(die), 0, cf, cl,
				tag == DW_TAG_inlined_subroutine };
			if (tag == DW_TAG_subprogram) {
				if (grow((void **)&c->subs, &c->subcap, c->nsubs + 1,
					 sizeof *c->subs) != 0)
					return -1;
				c->subs[c->nsubs++] = (struct sub){ lo, hi, (uint32_t)(c->nents - 1) };
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
	const struct sub *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int build(struct cu *c)
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

/* The unit holding DWARF address a: by .debug_aranges when it has a (a
 * few units of a big file are read, not all), else by the ranges of every
 * unit, walked once. */
static struct cu *cu_of(struct fk_dwline *d, uint64_t a)
{
	if (!d->indexed) {
		int ix = unit_by_aranges(d, a);
		if (ix >= 0)
			return &d->cus[ix];
		if (index_units(d) != 0)
			return NULL;
	}
	const struct curange *r = fk_span_find(d->rg, d->nrg, sizeof *d->rg, a);
	return r ? &d->cus[r->cu] : NULL;
}

static const char *file_of(struct cu *c, uint32_t idx)
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
static void names(struct cu *c, Dwarf_Off off, struct fk_dwframe *f)
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

static void line_of(struct cu *c, uint64_t a, const char **file, uint32_t *line)
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
	struct cu *c = cu_of(d, a);
	if (!c || build(c) != 0 || max <= 0)
		return 0;
	/* The subprogram holding a: last range starting at or before it. */
	size_t lo = fk_count_le(c->subs, c->nsubs, sizeof *c->subs,
				offsetof(struct sub, lo), a);
	const struct ent *top = NULL;
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
	const struct ent *chain[FK_MAX_INLINE];
	int n = 0;
	chain[n++] = top;
	uint32_t ti = (uint32_t)(top - c->ents);
	for (uint32_t i = ti + 1; i < top->end && n < FK_MAX_INLINE; i++) {
		const struct ent *e = &c->ents[i];
		if (e->inlined && e->lo <= a && a < e->hi)
			chain[n++] = e;
	}
	if (n > max)
		n = max;
	/* Innermost first: frame 0 takes the line table's file:line, each
	 * outer frame the call site recorded on the frame inside it. */
	for (int k = 0; k < n; k++) {
		const struct ent *e = chain[n - 1 - k];
		names(c, e->die, &out[k]);
		if (k == 0) {
			line_of(c, a, &out[k].file, &out[k].line);
		} else {
			const struct ent *inner = chain[n - k];
			out[k].file = file_of(c, inner->call_file);
			out[k].line = inner->call_line;
		}
	}
	return n;
}

const char *fk_dwline_missing_dwo(const struct fk_dwline *d)
{
	return d->missing_dwo;
}

int fk_dwline_src(struct fk_dwline *d, uint64_t addr, const char **file,
		  uint32_t *line)
{
	uint64_t a = addr - d->bias;
	struct cu *c = cu_of(d, a);
	if (!c)
		return -1;
	line_of(c, a, file, line);
	return *file ? 0 : -1;
}

void fk_dwline_free(struct fk_dwline *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncus; i++) {
		free(d->cus[i].ents);
		free(d->cus[i].subs);
	}
	free(d->cus);
	fk_u64map_release(&d->byoff);
	free(d->ar);
	free(d->rg);
	if (d->elf) {
		dwarf_end(d->dw);
		elf_end(d->elf);
	}
	for (size_t i = 0; i < d->nz; i++)
		fk_zsect_release(&d->z[i]);
	free(d->z);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}
