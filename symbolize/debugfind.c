/* SPDX-License-Identifier: MIT */
/* A debug-file finder for libdwfl: by build-id under each debug folder's
 * .build-id/xx/rest.debug, then by the .gnu_debuglink name beside the
 * file, in its .debug/ subfolder and under each debug folder (GDB's
 * "Separate Debug Files" conventions), and last, only when DEBUGINFOD_URLS
 * is set, from debuginfod servers by build-id (debuginfod.c). libdwfl's
 * standard finder loads libdebuginfod (and libcurl) whenever a local
 * search fails, set or not; this one loads nothing (debuginfod.c loads
 * libcurl only to ask a server). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize_int.h"

size_t fk_debugfind_build_id(Elf *e, unsigned char *buf, size_t max)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (off < d->d_size &&
		       (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= max) {
				memcpy(buf, (const char *)d->d_buf + doff, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* Remembers why a debug file was refused, for one warning (symbolize.c);
 * the first reason is kept. */
static void refuse(struct fk_smod *m, const char *path, const char *why)
{
	if (!m->debug_why[0])
		snprintf(m->debug_why, sizeof m->debug_why, "debug file %.200s: %.100s",
			 path, why);
}

/* Opens path (inside root when root is not NULL, as fk_rootpath_open) if
 * it is an ELF file that can serve as the debug file of module m with
 * build-id want[0..wantlen) (any file when wantlen is 0), and not the file
 * self. Returns the descriptor with the path opened in *full (malloc'd),
 * FK_DINFOD_OTHER for a file that is not the one asked for (not ELF,
 * another build-id), or -1. A candidate that exists but is refused (no
 * regular file, out of the root, inflating past its size) is noted in m.
 * name, when not NULL, is the name *full takes instead (a file opened
 * by a temporary name). */
static int try_file(struct fk_smod *m, const char *root, const char *path,
		    const char *self, const unsigned char *want, size_t wantlen,
		    const char *name, char **full)
{
	char why[256];
	*full = NULL;
	int fd = fk_rootpath_open(root, path, full, why, sizeof why);
	if (fd == -3 || fd == -4)
		refuse(m, *full ? *full : path, why);
	if (fd >= 0 && name) {
		free(*full);
		if (!(*full = strdup(name))) {
			close(fd);
			return -1;
		}
	}
	if (fd < 0 || (self && strcmp(*full, self) == 0)) {
		if (fd >= 0)
			close(fd);
		free(*full);
		*full = NULL;
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = e && elf_kind(e) == ELF_K_ELF ? fd : FK_DINFOD_OTHER;
	if (rc >= 0 && wantlen > 0) {
		unsigned char got[64];
		size_t n = fk_debugfind_build_id(e, got, sizeof got);
		if (n != wantlen || memcmp(got, want, n) != 0)
			rc = FK_DINFOD_OTHER;
	}
	if (rc >= 0 && fk_zsect_check(e, why, sizeof why) != 0) {
		refuse(m, *full, why);
		rc = -1;
	}
	elf_end(e);
	if (rc < 0) {
		close(fd);
		free(*full);
		*full = NULL;
	}
	return rc;
}

/* Hands a found debug file to libdwfl (which takes *full) and remembers
 * it for the module's own DWARF reader (dwfile.c). */
static int found(struct fk_smod *m, int fd, char *full, char **name)
{
	*name = full;
	free(m->debug_path);
	m->debug_path = strdup(full);
	return fd;
}

/* A dwz supplementary file (.gnu_debugaltlink): an absolute path, found
 * under the sysroot, or one relative to the module's debug file. Its
 * build-id is checked by libdw, not here. */
static int find_alt(struct fk_smod *m, const char *alt, char **name)
{
	char path[8192];
	const char *root = m->ctx->o->sysroot, *below;
	if (alt[0] == '/') {
		snprintf(path, sizeof path, "%s", alt);
	} else if (m->debug_path && strrchr(m->debug_path, '/')) {
		/* Beside a debug file under the root: resolved in it. */
		below = fk_rootpath_below(root, m->debug_path);
		const char *dir = below ? below : m->debug_path;
		snprintf(path, sizeof path, "%.*s/%s",
			 (int)(strrchr(dir, '/') - dir), dir, alt);
		if (!below)
			root = NULL;
	} else {
		return -1;
	}
	return try_file(m, root, path, NULL, NULL, 0, NULL, name);
}

/* A file a server gave, checked like a local one. */
struct answer {
	struct fk_smod *m;
	const char *file_name;
	const unsigned char *bid;
	size_t bidlen;
	char *full;                    /* the path opened */
};

static int check_answer(void *ctx, const char *path, const char *name)
{
	struct answer *a = ctx;
	return try_file(a->m, NULL, path, a->file_name, a->bid, a->bidlen, name, &a->full);
}

/* After every local place: the run's debuginfod servers, if any. */
static int from_servers(struct fk_smod *m, const char *file_name,
			const unsigned char *bid, int bidlen, char **name)
{
	struct answer a = { m, file_name, bid, (size_t)bidlen, NULL };
	int fd;

	if (bidlen <= 0 || !m->ctx->dinfod ||
	    (fd = fk_dinfod_find(m->ctx->dinfod, bid, (size_t)bidlen, check_answer, &a)) < 0)
		return -1;
	return found(m, fd, a.full, name);
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	(void)modname, (void)base, (void)crc;
	struct fk_smod *m = *userdata;
	if (!m || !m->ctx)
		return -1;
	const struct fk_symctx *c = m->ctx;
	if (debuglink && strchr(debuglink, '/'))
		return find_alt(m, debuglink, debuginfo_file_name);
	const unsigned char *bid;
	GElf_Addr bidaddr;
	int bidlen = dwfl_module_build_id(mod, &bid, &bidaddr);
	if (bidlen < 0)
		bidlen = 0;
	char path[8192], *full;
	int fd;
	/* The last debug folder is the sysroot's own /usr/lib/debug, searched
	 * inside the root; the options' folders are the caller's. */
	const char *root = c->o->sysroot && c->o->sysroot[0] ? c->o->sysroot : NULL;

	if (bidlen >= 2) {
		for (size_t i = 0; i < c->ndebug_dirs; i++) {
			const char *dir = c->debug_dirs[i], *droot = NULL;
			if (root && i + 1 == c->ndebug_dirs)
				dir = "/usr/lib/debug", droot = root;
			int k = snprintf(path, sizeof path, "%s/.build-id/%02x/",
					 dir, bid[0]);
			for (int j = 1; j < bidlen && k > 0 && (size_t)k + 3 < sizeof path; j++)
				k += snprintf(path + k, sizeof path - (size_t)k, "%02x", bid[j]);
			if (k <= 0 || (size_t)k + 7 >= sizeof path)
				continue;
			strcpy(path + k, ".debug");
			if ((fd = try_file(m, droot, path, file_name, bid, (size_t)bidlen,
					   NULL, &full)) >= 0)
				return found(m, fd, full, debuginfo_file_name);
		}
	}
	if (!debuglink || !debuglink[0])
		return from_servers(m, file_name, bid, bidlen, debuginfo_file_name);
	/* Folder of the opened file (below the root, if under one), and of
	 * the module as the maps name it (the form under a global debug
	 * folder). */
	const char *below = file_name ? fk_rootpath_below(root, file_name) : NULL;
	const char *fname = below ? below : file_name;
	const char *froot = below ? root : NULL;
	const char *slash = fname ? strrchr(fname, '/') : NULL;
	int dirlen = slash ? (int)(slash - fname) : 0;
	const char *mslash = strrchr(m->path, '/');
	int mdirlen = mslash ? (int)(mslash - m->path) : 0;
	const unsigned char *want = bidlen > 0 ? bid : NULL;
	size_t wantlen = (size_t)bidlen;

	if (slash) {
		snprintf(path, sizeof path, "%.*s/%s", dirlen, fname, debuglink);
		if ((fd = try_file(m, froot, path, file_name, want, wantlen, NULL, &full)) >= 0)
			return found(m, fd, full, debuginfo_file_name);
		snprintf(path, sizeof path, "%.*s/.debug/%s", dirlen, fname, debuglink);
		if ((fd = try_file(m, froot, path, file_name, want, wantlen, NULL, &full)) >= 0)
			return found(m, fd, full, debuginfo_file_name);
	}
	for (size_t i = 0; i < c->ndebug_dirs; i++) {
		const char *dir = c->debug_dirs[i], *droot = NULL;
		if (root && i + 1 == c->ndebug_dirs)
			dir = "/usr/lib/debug", droot = root;
		snprintf(path, sizeof path, "%s%.*s/%s", dir, mdirlen, m->path, debuglink);
		if ((fd = try_file(m, droot, path, file_name, want, wantlen, NULL, &full)) >= 0)
			return found(m, fd, full, debuginfo_file_name);
		snprintf(path, sizeof path, "%s/%s", dir, debuglink);
		if ((fd = try_file(m, droot, path, file_name, want, wantlen, NULL, &full)) >= 0)
			return found(m, fd, full, debuginfo_file_name);
	}
	return from_servers(m, file_name, bid, bidlen, debuginfo_file_name);
}

/* Modules are always reported with their descriptor, so libdwfl never asks
 * for the main file. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)elfp;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

const Dwfl_Callbacks *fk_debugfind_callbacks(void)
{
	return &callbacks;
}
