/* SPDX-License-Identifier: MIT */
/* Opening a module's DWARF for dwunits.c and dwinline.c: the ELF file is
 * opened on its own, the debug sections lookups never read are hidden and
 * the compressed ones it reads are inflated by zsect.c (on several threads,
 * modpool.c) before libdw opens the file; or libdwfl's DWARF of the module
 * is used as it is. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "grow.h"
#include "dwline_int.h"

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
	if (fk_reserve((void **)&d->z, cap, d->nz + 1, sizeof *d->z, 16) != 0)
		return -1;
	d->z[d->nz++] = z;
	return 0;
}

/* Opens path privately and, with internals, hides the debug sections
 * lookups never read (as SHT_NOBITS, which libdw skips) and lists the
 * compressed ones it reads. */
struct fk_dwline *fk_dwline_open(const char *path, uint64_t bias, int internals)
{
	size_t shstrndx, zcap = 0;
	struct fk_dwline *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->bias = bias;
	/* path was checked when the module or its debug file was found;
	 * check again, it is opened anew. */
	char why[128];
	d->fd = fk_rootpath_open_regular(path, 0, why, sizeof why);
	if (d->fd < 0)
		goto fail;
	const char *slash = strrchr(path, '/');
	if (slash && !(d->dir = strndup(path, (size_t)(slash - path))))
		goto fail;
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(d->elf, &shstrndx) != 0)
		goto fail;
	Elf_Scn *scn = NULL;
	while (internals && (scn = elf_nextscn(d->elf, scn)) != NULL) {
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

struct fk_dwline *fk_dwline_of_module(Dwfl_Module *mod)
{
	struct fk_dwline *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->fd = -1;
	Dwarf_Addr dwbias = 0;
	d->dw = dwfl_module_getdwarf(mod, &dwbias);
	const char *mainfile = NULL, *debugfile = NULL;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	const char *f = debugfile ? debugfile : mainfile, *slash = f ? strrchr(f, '/') : NULL;
	if (slash)
		d->dir = strndup(f, (size_t)(slash - f));
	d->bias = dwbias;
	if (!d->dw) {
		fk_dwline_free(d);
		return NULL;
	}
	return d;
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
	free(d->rg);
	if (d->elf) {
		dwarf_end(d->dw);
		elf_end(d->elf);
	}
	for (size_t i = 0; i < d->nz; i++)
		fk_zsect_release(&d->z[i]);
	free(d->z);
	free(d->dir);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}
