/* SPDX-License-Identifier: MIT */
/* A function looked up by name in one ELF file, through the same libdwfl
 * module and offline debug-file finder that symbolization uses: the file's
 * .symtab, else its .dynsym with the .gnu_debugdata minidebuginfo, else
 * the .symtab of a debug file found by build-id or .gnu_debuglink. The
 * hook uses it to find a jemalloc that exports nothing (a static or
 * `_rjem_`-prefixed one, whose mallctl is only in .symtab). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include "symbolize_int.h"

/* Whether e has a section of type t. */
static int has_section(Elf *e, GElf_Word t)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == t)
			return 1;
	}
	return 0;
}

/* Index in names[0..n) of name, or -1. */
static int name_index(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

/* Scans mod's symbol table for the first of names defined as a function
 * (in the order of names, whatever the table's order). */
static int scan(Dwfl_Module *mod, const char *const *names, size_t n,
		struct fk_symfind *out)
{
	int nsym = dwfl_module_getsymtab(mod), best = -1;
	GElf_Addr mbias = 0;
	Elf *main_elf = dwfl_module_getelf(mod, &mbias);
	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *from = NULL;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
							   &from, NULL);
		if (!name || shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		int k = name_index(name, names, n);
		if (k < 0 || (best >= 0 && k >= best))
			continue;
		best = k;
		out->vaddr = addr - mbias;
		if (from == main_elf)
			out->table = has_section(main_elf, SHT_SYMTAB) ? ".symtab" : ".dynsym";
		else if (out->debug_file[0])
			out->table = "debug file";
		else
			out->table = ".gnu_debugdata";
	}
	return best;
}

int fk_symbolize_find_func(const char *path, const char *const *names, size_t n,
			   struct fk_symfind *out, struct fk_err *err)
{
	static const struct fk_symbolize_opts noopts;
	char *dirs[] = { "/usr/lib/debug" };
	struct fk_symctx c;
	struct fk_smod m;
	int fd, found = -1;

	memset(out, 0, sizeof *out);
	out->table = "";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fk_err_set(err, FK_EUNSUPP, 0, "libelf is too old"), -2;
	/* Only a regular file: a FIFO or a device named here must not block. */
	char why[256];
	fd = fk_rootpath_open_regular(path, 0, why, sizeof why);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "%s: %s", path, why), -2;
	memset(&c, 0, sizeof c);
	memset(&m, 0, sizeof m);
	c.o = &noopts;
	c.debug_dirs = dirs;
	c.ndebug_dirs = 1;
	m.path = path;
	m.base = fk_maps_basename(path);
	m.ctx = &c;
	m.file = (char *)path;
	Dwfl *dwfl = dwfl_begin(fk_debugfind_callbacks());
	if (!dwfl) {
		close(fd);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory"), -2;
	}
	dwfl_report_begin(dwfl);
	/* libdwfl takes the descriptor; module addresses are the file's vaddrs. */
	Dwfl_Module *mod = dwfl_report_elf(dwfl, m.base, path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		fk_err_set(err, FK_EIO, 0, "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return -2;
	}
	void **ud;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = &m;
	/* The debug file's path is known only once libdwfl asked for it. */
	dwfl_module_getsymtab(mod);
	if (m.debug_path)
		snprintf(out->debug_file, sizeof out->debug_file, "%s", m.debug_path);
	found = scan(mod, names, n, out);
	dwfl_end(dwfl);
	free(m.debug_path);
	return found;
}
