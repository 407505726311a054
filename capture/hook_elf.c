/* SPDX-License-Identifier: MIT */
/* A function's address from an ELF file's own symbol tables, read with no
 * library: what the resident half needs to find a jemalloc that exports
 * nothing (a static one whose mallctl is only in .symtab) without loading
 * libdw. It answers as symbolize/symfind.c does wherever the file alone
 * decides (a .symtab, a build-id debug file's .symtab, or a .dynsym with
 * no other source beside it), and says "ask the full reader" otherwise. Every offset is checked against
 * the file's size: a truncated or hostile file is an answer, never a
 * crash. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook_int.h"

#define DEBUG_DIR "/usr/lib/debug"

struct elf_file {
	const unsigned char *p;
	size_t size;
	const Elf64_Shdr *sh;
	size_t nsh;
};

/* Whether [off, off + len) lies in the file. */
static int in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* The section headers, or -1 for anything but a little-endian ELF64 of
 * this machine with sane headers. */
static int open_headers(struct elf_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->p;

	if (f->size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shnum == 0 || eh->e_shoff % 8 != 0 ||
	    !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return -1;
	f->sh = (const Elf64_Shdr *)(f->p + eh->e_shoff);
	f->nsh = eh->e_shnum;
	return 0;
}

/* The section named name (by .shstrtab), or NULL. */
static const Elf64_Shdr *named(const struct elf_file *f, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->p;
	const Elf64_Shdr *str;
	size_t len = strlen(name);

	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= f->nsh)
		return NULL;
	str = &f->sh[eh->e_shstrndx];
	if (!in_file(f, str->sh_offset, str->sh_size))
		return NULL;
	for (size_t i = 0; i < f->nsh; i++) {
		uint64_t o = f->sh[i].sh_name;

		if (o < str->sh_size && len < str->sh_size - o &&
		    memcmp(f->p + str->sh_offset + o, name, len + 1) == 0)
			return &f->sh[i];
	}
	return NULL;
}

static const Elf64_Shdr *of_type(const struct elf_file *f, uint32_t type)
{
	for (size_t i = 0; i < f->nsh; i++)
		if (f->sh[i].sh_type == type)
			return &f->sh[i];
	return NULL;
}

/* Scans the symbol table tab for the first of names defined as a function;
 * FK_ELF_ASK when the table cannot be read as it stands. */
static int scan(const struct elf_file *f, const Elf64_Shdr *tab, const char *const *names,
		size_t n, uint64_t *vaddr)
{
	const Elf64_Shdr *str;
	int best = -1;

	if (tab->sh_link >= f->nsh || tab->sh_entsize != sizeof(Elf64_Sym) ||
	    (tab->sh_flags & SHF_COMPRESSED) || !in_file(f, tab->sh_offset, tab->sh_size))
		return FK_ELF_ASK;
	str = &f->sh[tab->sh_link];
	if ((str->sh_flags & SHF_COMPRESSED) || !in_file(f, str->sh_offset, str->sh_size))
		return FK_ELF_ASK;
	for (uint64_t i = 1; i < tab->sh_size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;
		const char *nm;
		int type;

		memcpy(&s, f->p + tab->sh_offset + i * sizeof s, sizeof s);
		type = ELF64_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0 ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_name >= str->sh_size)
			continue;
		nm = (const char *)f->p + str->sh_offset + s.st_name;
		for (size_t k = 0; k < n && (best < 0 || (int)k < best); k++) {
			size_t len = strlen(names[k]);

			if (len < str->sh_size - s.st_name && memcmp(nm, names[k], len + 1) == 0) {
				best = (int)k;
				*vaddr = s.st_value;
			}
		}
	}
	return best;
}

/* The path of f's debug file by build-id under /usr/lib/debug into buf;
 * 0 when f has no build-id. */
static int build_id_path(const struct elf_file *f, char *buf, size_t size)
{
	const Elf64_Shdr *bid = named(f, ".note.gnu.build-id");
	Elf64_Nhdr nh;
	const unsigned char *d, *id;
	int k;

	if (!bid || !in_file(f, bid->sh_offset, bid->sh_size) || bid->sh_size < sizeof nh)
		return 0;
	d = f->p + bid->sh_offset;
	memcpy(&nh, d, sizeof nh);
	if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz < 2 ||
	    nh.n_descsz > 64 || sizeof nh + 4 + nh.n_descsz > bid->sh_size)
		return 0;
	id = d + sizeof nh + 4;
	k = snprintf(buf, size, DEBUG_DIR "/.build-id/%02x/", id[0]);
	for (uint32_t j = 1; j < nh.n_descsz; j++)
		k += snprintf(buf + k, size - (size_t)k, "%02x", id[j]);
	snprintf(buf + k, size - (size_t)k, ".debug");
	return 1;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Whether a debug file named by f's .gnu_debuglink (f at path) is on disk
 * where the offline finder looks (symbolize/debugfind.c): beside the
 * file, in its .debug/, under /usr/lib/debug. */
static int debuglink_near(const struct elf_file *f, const char *path)
{
	const Elf64_Shdr *dl = named(f, ".gnu_debuglink");
	const char *slash = strrchr(path, '/'), *link;
	int dir = slash ? (int)(slash - path) : 0;
	char buf[1024];
	size_t ln;

	if (!dl || !in_file(f, dl->sh_offset, dl->sh_size) || dl->sh_size == 0)
		return 0;
	link = (const char *)f->p + dl->sh_offset;
	ln = strnlen(link, dl->sh_size);
	if (ln == 0 || ln == dl->sh_size || ln > 255)
		return ln != 0;    /* unterminated: the full reader judges */
	if (strchr(link, '/'))
		return exists(link);
	snprintf(buf, sizeof buf, "%.*s/%s", dir, path, link);
	if (slash && exists(buf))
		return 1;
	snprintf(buf, sizeof buf, "%.*s/.debug/%s", dir, path, link);
	if (slash && exists(buf))
		return 1;
	snprintf(buf, sizeof buf, DEBUG_DIR "%.*s/%s", dir, path, link);
	if (exists(buf))
		return 1;
	snprintf(buf, sizeof buf, DEBUG_DIR "/%s", link);
	return exists(buf);
}

/* Maps the regular file path into f: 0, or -1 when it cannot be read. */
static int map_file(const char *path, struct elf_file *f)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	f->p = map;
	f->size = (size_t)st.st_size;
	return 0;
}

/* The .symtab of the debug file at path (found by build-id): as scan, or
 * FK_ELF_ASK when it is not one this reader takes. */
static int scan_debug_file(const char *path, const char *const *names, size_t n,
			   uint64_t *vaddr)
{
	struct elf_file d;
	const Elf64_Shdr *tab;
	int rc = FK_ELF_ASK;

	if (map_file(path, &d) < 0)
		return FK_ELF_ASK;
	if (open_headers(&d) == 0 && (tab = of_type(&d, SHT_SYMTAB)) != NULL)
		rc = scan(&d, tab, names, n, vaddr);
	munmap((void *)d.p, d.size);
	return rc;
}

/* The answer for the mapped file f (at path). libdw's order: the file's
 * .symtab; else a debug file's; else the .dynsym, with .gnu_debugdata. */
static int find_in(const struct elf_file *f, const char *path, const char *const *names,
		   size_t n, uint64_t *vaddr, const char **table)
{
	const Elf64_Shdr *tab = of_type(f, SHT_SYMTAB);
	char dbg[1024];

	if (tab) {
		*table = ".symtab";
		return scan(f, tab, names, n, vaddr);
	}
	if (build_id_path(f, dbg, sizeof dbg) && exists(dbg)) {
		*table = "debug file";
		return scan_debug_file(dbg, names, n, vaddr);
	}
	if (debuglink_near(f, path) || named(f, ".gnu_debugdata"))
		return FK_ELF_ASK;
	tab = of_type(f, SHT_DYNSYM);
	*table = ".dynsym";
	return tab ? scan(f, tab, names, n, vaddr) : -1;
}

int fk_elf_find_func(const char *path, const char *const *names, size_t n,
		     uint64_t *vaddr, const char **table)
{
	struct elf_file f;
	int rc;

	*vaddr = 0;
	*table = "";
	if (map_file(path, &f) < 0)
		return -2;
	rc = open_headers(&f) < 0 ? FK_ELF_ASK : find_in(&f, path, names, n, vaddr, table);
	munmap((void *)f.p, f.size);
	if (rc < 0)
		*table = "";
	return rc;
}
