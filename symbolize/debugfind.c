/* An offline debug-file finder for libdwfl: by build-id under each debug
 * folder's .build-id/xx/rest.debug, then by the .gnu_debuglink name beside
 * the file, in its .debug/ subfolder and under each debug folder (GDB's
 * "Separate Debug Files" conventions). libdwfl's standard finder falls back
 * to debuginfod (loading libcurl, and going to the network when
 * DEBUGINFOD_URLS is set); an offline tool must not. */
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

/* Opens path if it is an ELF file that can serve as the debug file of a
 * module with build-id want[0..wantlen) (any file when wantlen is 0).
 * Returns the descriptor or -1. */
static int try_file(const char *path, const char *self,
		    const unsigned char *want, size_t wantlen)
{
	if (self && strcmp(path, self) == 0)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int ok = e && elf_kind(e) == ELF_K_ELF;
	if (ok && wantlen > 0) {
		unsigned char got[64];
		size_t n = fk_debugfind_build_id(e, got, sizeof got);
		ok = n == wantlen && memcmp(got, want, n) == 0;
	}
	elf_end(e);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Hands a found debug file to libdwfl and remembers it for the module's
 * own DWARF reader (dwarfline.c). */
static int found(struct fk_smod *m, int fd, const char *path, char **name)
{
	*name = strdup(path);
	free(m->debug_path);
	m->debug_path = strdup(path);
	return fd;
}

/* A dwz supplementary file (.gnu_debugaltlink): an absolute path, found
 * under the sysroot, or one relative to the module's debug file. Its
 * build-id is checked by libdw, not here. */
static int find_alt(const struct fk_smod *m, const char *alt, char **name)
{
	char path[8192];
	const char *root = m->ctx->o->sysroot;
	if (alt[0] == '/')
		snprintf(path, sizeof path, "%s%s", root ? root : "", alt);
	else if (m->debug_path && strrchr(m->debug_path, '/'))
		snprintf(path, sizeof path, "%.*s/%s",
			 (int)(strrchr(m->debug_path, '/') - m->debug_path),
			 m->debug_path, alt);
	else
		return -1;
	int fd = try_file(path, NULL, NULL, 0);
	if (fd >= 0)
		*name = strdup(path);
	return fd;
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
	char path[8192];
	int fd;

	if (bidlen >= 2) {
		for (size_t i = 0; i < c->ndebug_dirs; i++) {
			int k = snprintf(path, sizeof path, "%s/.build-id/%02x/",
					 c->debug_dirs[i], bid[0]);
			for (int j = 1; j < bidlen && k > 0 && (size_t)k + 3 < sizeof path; j++)
				k += snprintf(path + k, sizeof path - (size_t)k, "%02x", bid[j]);
			if (k <= 0 || (size_t)k + 7 >= sizeof path)
				continue;
			strcpy(path + k, ".debug");
			if ((fd = try_file(path, file_name, bid, (size_t)bidlen)) >= 0)
				return found(m, fd, path, debuginfo_file_name);
		}
	}
	if (!debuglink || !debuglink[0])
		return -1;
	/* Folder of the opened file, and of the module as the maps name it
	 * (the form under a global debug folder). */
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	int dirlen = slash ? (int)(slash - file_name) : 0;
	const char *mslash = strrchr(m->path, '/');
	int mdirlen = mslash ? (int)(mslash - m->path) : 0;
	const unsigned char *want = bidlen > 0 ? bid : NULL;
	size_t wantlen = (size_t)bidlen;

	if (slash) {
		snprintf(path, sizeof path, "%.*s/%s", dirlen, file_name, debuglink);
		if ((fd = try_file(path, file_name, want, wantlen)) >= 0)
			return found(m, fd, path, debuginfo_file_name);
		snprintf(path, sizeof path, "%.*s/.debug/%s", dirlen, file_name, debuglink);
		if ((fd = try_file(path, file_name, want, wantlen)) >= 0)
			return found(m, fd, path, debuginfo_file_name);
	}
	for (size_t i = 0; i < c->ndebug_dirs; i++) {
		snprintf(path, sizeof path, "%s%.*s/%s", c->debug_dirs[i],
			 mdirlen, m->path, debuglink);
		if ((fd = try_file(path, file_name, want, wantlen)) >= 0)
			return found(m, fd, path, debuginfo_file_name);
		snprintf(path, sizeof path, "%s/%s", c->debug_dirs[i], debuglink);
		if ((fd = try_file(path, file_name, want, wantlen)) >= 0)
			return found(m, fd, path, debuginfo_file_name);
	}
	return -1;
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
