/* SPDX-License-Identifier: MIT */
/* From the dump's maps to modules: one module per mapped file, checked
 * against the mappings (each mapping's offset must fall in a PT_LOAD
 * segment, executable mappings in executable ones, and every mapping of
 * the file must imply the same load bias), and file offsets converted to
 * module addresses, the file's own p_vaddr space (ELF gABI, "Program
 * Loading"). smod.c opens each module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "symbolize_int.h"

int fk_modmap_init(struct fk_symctx *c)
{
	const struct fk_profile *p = c->p;
	c->mods = calloc(p->nmaps ? p->nmaps : 1, sizeof *c->mods);
	fk_u64map_init(&c->bypath);
	if (!c->mods)
		return -1;
	c->nmods = 0;
	/* Paths are interned, so equal paths are equal pointers. */
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct fk_mapping *m = &p->maps[i];
		if (m->kind != FK_MAP_FILE)
			continue;
		size_t j;
		for (j = 0; j < c->nmods; j++)
			if (c->mods[j].path == m->path)
				break;
		if (j < c->nmods)
			continue;
		struct fk_smod *s = &c->mods[c->nmods++];
		s->path = m->path;
		s->base = fk_maps_basename(m->path);
		s->ctx = c;
	}
	/* Paths are interned: a module is found by its path's address. */
	for (size_t j = 0; j < c->nmods; j++)
		if (fk_u64map_put(&c->bypath, (uintptr_t)c->mods[j].path, (uint32_t)j) < 0)
			return -1;
	return 0;
}

struct fk_smod *fk_modmap_module(struct fk_symctx *c, const struct fk_mapping *m)
{
	if (m->kind != FK_MAP_FILE)
		return NULL;
	uint32_t j = fk_u64map_get(&c->bypath, (uintptr_t)m->path);
	return j == UINT32_MAX ? NULL : &c->mods[j];
}

/* Whether file offset off lies in ph as the loader maps it: exactly, or
 * in the page before p_offset that the page-aligned mapping also covers. */
static int holds(const GElf_Phdr *ph, uint64_t off, int exact)
{
	uint64_t lo = exact ? ph->p_offset : ph->p_offset & ~(uint64_t)0xfff;
	return off >= lo && off - ph->p_offset + (ph->p_offset - lo) <
			    ph->p_filesz + (ph->p_offset - lo);
}

/* The PT_LOAD holding offset off. One page can belong to two segments
 * (the end of .rodata and the start of RELRO data), so prefer exact
 * containment in an executable segment, then exact, then page-aligned. */
static const GElf_Phdr *load_of(const struct fk_smod *s, uint64_t off)
{
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < s->nloads; i++) {
			const GElf_Phdr *ph = &s->loads[i];
			if (pass == 0 && !(ph->p_flags & PF_X))
				continue;
			if (holds(ph, off, pass < 2))
				return ph;
		}
	}
	return NULL;
}

/* The executable PT_LOAD an executable mapping starting at file offset off
 * maps: the loader maps a segment from the page holding its p_offset, and
 * that page may end a segment before it (lld lays segments out back to
 * back in the file, not page-aligned). */
static const GElf_Phdr *exec_load_of(const struct fk_smod *s, uint64_t off)
{
	for (size_t i = 0; i < s->nloads; i++)
		if ((s->loads[i].p_flags & PF_X) && holds(&s->loads[i], off, 0))
			return &s->loads[i];
	return NULL;
}

int fk_modmap_in_code(const struct fk_smod *s, uint64_t fileoff)
{
	for (size_t i = 0; i < s->nloads; i++)
		if ((s->loads[i].p_flags & PF_X) && holds(&s->loads[i], fileoff, 1))
			return 1;
	return 0;
}

int fk_modmap_addr(const struct fk_smod *s, uint64_t fileoff, uint64_t *addr)
{
	const GElf_Phdr *ph = load_of(s, fileoff);
	if (!ph)
		return -1;
	*addr = fileoff - ph->p_offset + ph->p_vaddr + s->bias;
	return 0;
}

static uint64_t bias_of(const struct fk_mapping *m, const GElf_Phdr *ph)
{
	return m->start - (m->offset - ph->p_offset + ph->p_vaddr);
}

/* Whether mapping m could be the loader's view of segment ph: never
 * writable or executable when the segment is not (RELRO makes a writable
 * segment read-only later, so fewer rights are fine). A file mapped whole
 * by other code (libelf maps ELF files "rw-p" from offset 0, so every
 * dump taken while the hook reads its own libraries shows them) is no
 * view of a segment, nor is a mapping longer than the segment. */
static int loader_view(const struct fk_mapping *m, const GElf_Phdr *ph)
{
	uint64_t pg = ph->p_offset & ~(uint64_t)0xfff;
	uint64_t span = (ph->p_offset - pg + ph->p_memsz + 0xfff) & ~(uint64_t)0xfff;

	return (m->perms[1] != 'w' || (ph->p_flags & PF_W)) &&
	       (m->perms[2] != 'x' || (ph->p_flags & PF_X)) &&
	       m->limit - m->start <= span;
}

/* Checks every mapping of s in the dump against its PT_LOAD segments: an
 * executable mapping must start in an executable segment, and every
 * mapping must fit some segment at the load bias of the first executable
 * mapping (the bias the loader chose for the whole file). An inaccessible
 * ("---p") mapping is the loader's hole between two segments: it keeps
 * the file offsets of the first mapping, which may fall in the next
 * segment's first page at another bias (libLLVM-14.so.1), so it is not
 * checked. */
static int check_maps(const struct fk_smod *s, const struct fk_profile *p,
		      char *why, size_t n)
{
	int have = 0;
	uint64_t ref = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->nmaps; i++) {
			const struct fk_mapping *m = &p->maps[i];
			if (m->path != s->path || m->kind != FK_MAP_FILE ||
			    strncmp(m->perms, "---", 3) == 0)
				continue;
			/* The module cache's own view of the file, in a dump of
			 * the process that symbolizes (the hook). */
			if (s->ctx->own_map && s->ctx->own_map[i])
				continue;
			int exec = m->perms[2] == 'x';
			if (pass == 0) {
				if (!exec || have)
					continue;
				const GElf_Phdr *ph = exec_load_of(s, m->offset);
				if (!ph) {
					snprintf(why, n, "the dump's executable mapping at "
						 "file offset 0x%llx is in no executable "
						 "segment of the file",
						 (unsigned long long)m->offset);
					return -1;
				}
				/* The loader maps a whole segment: a mapping that
				 * starts at the segment's first page must span it. */
				uint64_t pg = ph->p_offset & ~(uint64_t)0xfff;
				uint64_t span = (ph->p_offset - pg + ph->p_filesz + 0xfff) &
						~(uint64_t)0xfff;
				if (m->offset == pg && m->limit - m->start != span) {
					snprintf(why, n, "the file's executable segment (0x%llx "
						 "bytes) does not match the dump's mapping "
						 "(0x%llx bytes)", (unsigned long long)span,
						 (unsigned long long)(m->limit - m->start));
					return -1;
				}
				ref = bias_of(m, ph);
				have = 1;
				continue;
			}
			int any = 0, match = 0;
			for (size_t k = 0; k < s->nloads && !match; k++) {
				if (!holds(&s->loads[k], m->offset, 0) ||
				    !loader_view(m, &s->loads[k]))
					continue;
				any = 1;
				if (!have) {
					ref = bias_of(m, &s->loads[k]);
					have = 1;
				}
				match = bias_of(m, &s->loads[k]) == ref;
			}
			/* A non-executable view outside every segment is data
			 * the program mapped itself, not a loaded segment. */
			if ((any || exec) && !match) {
				snprintf(why, n, "the file's segments do not match the "
					 "dump's mappings (file offset 0x%llx)",
					 (unsigned long long)m->offset);
				return -1;
			}
		}
	}
	return 0;
}

int fk_modmap_read_loads(struct fk_smod *s, Elf *e, char *why, size_t n)
{
	GElf_Ehdr eh;
	size_t nph;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(why, n, "not an ELF file");
		return -1;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(why, n, "not an executable or shared library");
		return -1;
	}
	if (elf_getphdrnum(e, &nph) != 0 || nph == 0 || nph > 65536) {
		snprintf(why, n, "bad program headers");
		return -1;
	}
	s->loads = calloc(nph, sizeof *s->loads);
	if (!s->loads)
		return -2;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			snprintf(why, n, "bad program headers");
			return -1;
		}
		if (ph.p_type == PT_LOAD && ph.p_filesz > 0 &&
		    ph.p_offset + ph.p_filesz >= ph.p_offset)
			s->loads[s->nloads++] = ph;
	}
	if (s->nloads == 0) {
		snprintf(why, n, "no loadable segments");
		return -1;
	}
	return 0;
}

int fk_modmap_check(struct fk_smod *s, char *why, size_t n)
{
	return check_maps(s, s->ctx->p, why, n);
}

void fk_modmap_release(struct fk_symctx *c)
{
	free(c->mods);
	fk_u64map_release(&c->bypath);
	c->mods = NULL;
	c->nmods = 0;
}
