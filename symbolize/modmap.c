/* From the dump's maps to modules: one module per mapped file, opened once,
 * checked against the mappings (each mapping's offset must fall in a
 * PT_LOAD segment, executable mappings in executable ones, and every
 * mapping of the file must imply the same load bias), then reported to
 * libdwfl at its ELF addresses, so that a module address is the file's own
 * p_vaddr space (ELF gABI, "Program Loading"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include "strtab.h"
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

int fk_modmap_fileoff(const struct fk_smod *s, uint64_t addr, uint64_t *off)
{
	uint64_t v = addr - s->bias;
	for (size_t i = 0; i < s->nloads; i++) {
		const GElf_Phdr *ph = &s->loads[i];
		if (v >= ph->p_vaddr && v - ph->p_vaddr < ph->p_filesz) {
			*off = v - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

static uint64_t bias_of(const struct fk_mapping *m, const GElf_Phdr *ph)
{
	return m->start - (m->offset - ph->p_offset + ph->p_vaddr);
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
				if (!holds(&s->loads[k], m->offset, 0))
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

static int read_phdrs(struct fk_smod *s, Elf *e, char *why, size_t n)
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

static char *join(const char *root, const char *path)
{
	size_t a = root ? strlen(root) : 0, b = strlen(path);
	char *s = malloc(a + b + 2);
	if (!s)
		return NULL;
	memcpy(s, root ? root : "", a);
	if (a > 0 && s[a - 1] == '/' && path[0] == '/')
		a--;
	memcpy(s + a, path, b + 1);
	return s;
}

static void hex(char *dst, const unsigned char *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		dst[2 * i] = digits[b[i] >> 4];
		dst[2 * i + 1] = digits[b[i] & 15];
	}
	dst[2 * n] = '\0';
}

int fk_modmap_open(struct fk_smod *s, char *why, size_t n)
{
	const struct fk_symctx *c = s->ctx;
	struct fk_profile *p = c->p;
	s->state = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, n, "libelf is too old");
		return -1;
	}
	s->file = join(c->o->sysroot, s->path);
	if (!s->file)
		return -2;
	int fd = open(s->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "%s", strerror(errno));
		why[0] = why[0] >= 'A' && why[0] <= 'Z' ? (char)(why[0] - 'A' + 'a') : why[0];
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		snprintf(why, n, "not an ELF file");
		close(fd);
		return -1;
	}
	int r = read_phdrs(s, e, why, n);
	elf_end(e);
	if (r == 0)
		r = check_maps(s, p, why, n);
	if (r != 0) {
		close(fd);
		return r;
	}
	s->dwfl = dwfl_begin(fk_debugfind_callbacks());
	if (!s->dwfl) {
		close(fd);
		return -2;
	}
	dwfl_report_begin(s->dwfl);
	/* Base 0 with add_p_vaddr: module addresses are the file's vaddrs. */
	s->mod = dwfl_report_elf(s->dwfl, s->base, s->file, fd, 0, true);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!s->mod) {
		snprintf(why, n, "%s", dwfl_errmsg(-1));
		close(fd);
		return -1;
	}
	void **ud;
	dwfl_module_info(s->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = s;
	GElf_Addr bias = 0;
	if (!dwfl_module_getelf(s->mod, &bias)) {
		snprintf(why, n, "%s", dwfl_errmsg(-1));
		return -1;
	}
	s->bias = bias;

	const unsigned char *bid;
	GElf_Addr bidaddr;
	int bidlen = dwfl_module_build_id(s->mod, &bid, &bidaddr);
	if (bidlen > 0 && bidlen <= 64) {
		char h[129];
		hex(h, bid, (size_t)bidlen);
		const char *want = fk_profile_build_id(p, s->path);
		if (want && strcmp(want, h) != 0) {
			snprintf(why, n, "build-id %s differs from the profile's %.128s",
				 h, want);
			return -1;
		}
		s->build_id = fk_strtab_intern(p->strs, h, strlen(h));
		if (!s->build_id)
			return -2;
	}
	s->state = 1;
	return 0;
}

void fk_modmap_release(struct fk_symctx *c)
{
	for (size_t i = 0; i < c->nmods; i++) {
		struct fk_smod *s = &c->mods[i];
		fk_functab_release(&s->funcs);
		fk_dwline_free(s->dw);
		fk_dwline_free(s->dw_opened);
		fk_ehframe_release(s->cfi);
		dwfl_end(s->dwfl);
		free(s->loads);
		free(s->file);
		free(s->debug_path);
	}
	free(c->mods);
	fk_u64map_release(&c->bypath);
	c->mods = NULL;
	c->nmods = 0;
}
