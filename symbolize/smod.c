/* SPDX-License-Identifier: MIT */
/* One module's life cycle: opened once and checked against the dump, then
 * its debug file, symbol table, DWARF index and unwind table each built on
 * first need (enum fk_smod_state says how far it got), looked up, and
 * released. The lookup order lives here alone: DWARF inline chain, else
 * symbol, else unwind-table function start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "limits.h"
#include "strtab.h"
#include "symbolize_int.h"

static void hex(char *dst, const unsigned char *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		dst[2 * i] = digits[b[i] >> 4];
		dst[2 * i + 1] = digits[b[i] & 15];
	}
	dst[2 * n] = '\0';
}

/* Checks m's build-id, if it has one, against the one the profile knows
 * and records it. 0, -1 with why, or -2 (ENOMEM). */
static int check_build_id(struct fk_smod *m, char *why, size_t n)
{
	struct fk_profile *p = m->ctx->p;
	const unsigned char *bid;
	GElf_Addr bidaddr;
	int bidlen = dwfl_module_build_id(m->mod, &bid, &bidaddr);
	if (bidlen <= 0 || bidlen > 64)
		return 0;
	char h[129];
	hex(h, bid, (size_t)bidlen);
	const char *want = fk_profile_build_id(p, m->path);
	if (want && strcmp(want, h) != 0) {
		snprintf(why, n, "build-id %s differs from the profile's %.128s", h, want);
		return -1;
	}
	m->build_id = fk_strtab_intern(p->strs, h, strlen(h));
	return m->build_id ? 0 : -2;
}

/* Checks the file behind descriptor fd: layout against the dump, and
 * compressed sections that claim far more than the file could hold
 * (libelf inflates a section to the size its header claims), before
 * anything reads it. */
static int check_file(struct fk_smod *m, int fd, char *why, size_t n)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		snprintf(why, n, "not an ELF file");
		return -1;
	}
	int r = fk_modmap_read_loads(m, e, why, n);
	if (r == 0)
		r = fk_zsect_check(e, why, n);
	elf_end(e);
	return r == 0 ? fk_modmap_check(m, why, n) : r;
}

/* Reports m's file (descriptor fd, which libdwfl takes) at its ELF
 * addresses. */
static int report(struct fk_smod *m, int fd, char *why, size_t n)
{
	m->dwfl = dwfl_begin(fk_debugfind_callbacks());
	if (!m->dwfl) {
		close(fd);
		return -2;
	}
	dwfl_report_begin(m->dwfl);
	/* Base 0 with add_p_vaddr: module addresses are the file's vaddrs. */
	m->mod = dwfl_report_elf(m->dwfl, m->base, m->file, fd, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		snprintf(why, n, "%s", dwfl_errmsg(-1));
		close(fd);
		return -1;
	}
	void **ud;
	dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m;
	GElf_Addr bias = 0;
	if (!dwfl_module_getelf(m->mod, &bias)) {
		snprintf(why, n, "%s", dwfl_errmsg(-1));
		return -1;
	}
	m->bias = bias;
	return 0;
}

int fk_smod_fileid(int fd, struct fk_fileid *id)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	id->size = (uint64_t)st.st_size;
	id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	return 0;
}

void fk_smod_rehome(struct fk_smod *m)
{
	void **ud;
	if (m->mod && dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = m;
}

/* The first mapping of m's file in the dump (not one of the cache's own
 * views), or NULL. */
static const struct fk_mapping *first_map(const struct fk_smod *m)
{
	const struct fk_profile *p = m->ctx->p;

	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].path == m->path && p->maps[i].kind == FK_MAP_FILE &&
		    !(m->ctx->own_map && m->ctx->own_map[i]))
			return &p->maps[i];
	return NULL;
}

/* Whether the file opened (identity id) can be the one mapping mp maps:
 * not when the maps say it was deleted, nor when it is another inode of
 * the same device. Inode numbers of another device say nothing (another
 * machine, or overlayfs, whose st_dev is its own while the maps give the
 * layer's): the layout and code checks decide then, as they do for a
 * dump without inodes (0). */
static int is_mapped_file(const struct fk_mapping *mp, const struct fk_fileid *id)
{
	if (mp->deleted)
		return 0;
	if (mp->inode == 0 || makedev(mp->dev_major, mp->dev_minor) != id->dev)
		return 1;
	return mp->inode == id->ino;
}

/* In the process itself (the hook): the file mp maps, opened through
 * /proc/self/map_files/, whatever is at its path now. Its identity into
 * *id; the descriptor, or -1 (the kernel asks for CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE, or the mapping is gone). */
static int open_mapped(struct fk_smod *m, const struct fk_mapping *mp, struct fk_fileid *id)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "/proc/self/map_files/%llx-%llx",
		 (unsigned long long)mp->start, (unsigned long long)mp->limit);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fk_smod_fileid(fd, id) != 0 || (mp->inode && id->ino != mp->inode)) {
		close(fd);
		return -1;
	}
	char *f = strdup(path);
	if (!f) {
		close(fd);
		return -1;
	}
	free(m->file);
	m->file = f;
	return fd;
}

int fk_smod_open(struct fk_smod *m, char *why, size_t n)
{
	m->state = FK_SMOD_BAD;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, n, "libelf is too old");
		return -1;
	}
	/* Without a sysroot the file at the path must be the file mapped:
	 * another (a library replaced on disk, a new file at a deleted path)
	 * would name every address from the wrong code. A sysroot holds
	 * copies, told apart by the layout and code checks alone. */
	const char *root = m->ctx->o->sysroot;
	const struct fk_mapping *mp = root && *root ? NULL : first_map(m);
	int live = m->ctx->o->own_process && mp;
	int fd = fk_rootpath_open(root, m->path, &m->file, why, n);
	if (fd == -2)
		return -2;
	if (fd < 0 && !(live && mp->deleted))
		return -1;
	/* Without an identity the module is used, never cached. */
	if (fd >= 0 && fk_smod_fileid(fd, &m->id) != 0)
		memset(&m->id, 0, sizeof m->id);
	if (mp && (fd < 0 || !is_mapped_file(mp, &m->id))) {
		uint64_t now = fd >= 0 ? m->id.ino : 0;

		if (fd >= 0)
			close(fd);
		fd = live ? open_mapped(m, mp, &m->id) : -1;
		if (fd < 0) {
			if (mp->deleted)
				snprintf(why, n, "the mapped file was deleted%s: not named from the "
					 "file now at its path%s", live ? " and cannot be read through "
					 "/proc/self/map_files" : "", now ? "" : " (none)");
			else
				snprintf(why, n, "not the file mapped (inode %llu in the dump, %llu "
					 "now: replaced on disk%s): not named from it",
					 (unsigned long long)mp->inode, (unsigned long long)now,
					 live ? "; /proc/self/map_files cannot be read" : "");
			return -1;
		}
	}
	int r = check_file(m, fd, why, n);
	if (r != 0) {
		close(fd);
		return r;
	}
	if ((r = report(m, fd, why, n)) != 0 || (r = check_build_id(m, why, n)) != 0)
		return r;
	m->state = FK_SMOD_OPEN;
	return 0;
}

/* Takes the step after m's state; 0, or -1 when out of memory. */
static int step(struct fk_smod *m)
{
	switch (m->state) {
	case FK_SMOD_OPEN:
		/* The symbol table search finds the debug file, if any. */
		dwfl_module_getsymtab(m->mod);
		m->dw_opened = fk_dwline_open(m->debug_path ? m->debug_path : m->file,
					      m->bias, m->ctx->elf_internals);
		break;
	case FK_SMOD_LISTED:
		if (fk_functab_build(&m->funcs, m->mod) != 0)
			return -1;
		break;
	case FK_SMOD_TABLED:
		if (m->dw_opened && fk_dwline_begin(m->dw_opened) == 0)
			m->dw = m->dw_opened;
		else
			fk_dwline_free(m->dw_opened);
		m->dw_opened = NULL;
		if (!m->dw && !m->debug_path)
			m->dw = fk_dwline_of_module(m->mod);
		break;
	default:
		return -1;
	}
	m->state++;
	return 0;
}

int fk_smod_reach(struct fk_smod *m, enum fk_smod_state want)
{
	while (m->state < want)
		if (m->state < FK_SMOD_OPEN || step(m) != 0)
			return -1;
	return 0;
}

int fk_smod_lookup(struct fk_smod *m, uint64_t addr, struct fk_rawres *out)
{
	struct fk_dwframe dw[FK_MAX_INLINE];
	memset(out, 0, sizeof *out);
	if (fk_smod_reach(m, FK_SMOD_READY) != 0)
		return -1;
	int n = m->dw ? fk_dwline_lookup(m->dw, addr, dw, FK_MAX_INLINE) : 0;
	/* A nameless outermost function (artificial code) is left to the
	 * symbol table. */
	if (n > 0 && (dw[n - 1].name || dw[n - 1].linkage)) {
		out->dw = malloc((size_t)n * sizeof *out->dw);
		if (!out->dw)
			return -1;
		memcpy(out->dw, dw, (size_t)n * sizeof *out->dw);
		out->n = n;
		out->kind = FK_RAW_DWARF;
		return 0;
	}
	const struct fk_func *fn = fk_functab_find(&m->funcs, addr);
	if (fn) {
		out->sym = fn->name;
		if (!m->dw || fk_dwline_src(m->dw, addr, &out->file, &out->line) != 0) {
			out->file = NULL;
			out->line = 0;
		}
		out->kind = FK_RAW_SYMBOL;
		return 0;
	}
	/* In no symbol: the function is named by its unwind-table start, so
	 * stacks still merge per function, never by a neighbour's name. */
	uint64_t start;
	out->start = fk_ehframe_func_start(m->mod, &m->cfi, addr, &start) == 0 ? start : addr;
	out->kind = FK_RAW_START;
	return 0;
}

void fk_smod_release(struct fk_smod *m)
{
	fk_functab_release(&m->funcs);
	fk_dwline_free(m->dw);
	fk_dwline_free(m->dw_opened);
	fk_ehframe_release(m->cfi);
	dwfl_end(m->dwfl);
	free(m->loads);
	free(m->file);
	free(m->debug_path);
}
