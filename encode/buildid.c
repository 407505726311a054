/* The GNU build-id of an ELF file (the NT_GNU_BUILD_ID note of a PT_NOTE
 * segment, ELF gABI and binutils' --build-id), read with plain libc so that
 * to-pprof can name mappings of raw profiles, which carry no build-ids. */
#include "encode_int.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Notes are small; a PT_NOTE segment larger than this is not believed. */
#define MAX_NOTES (64 * 1024)
/* Build-ids are 16 or 20 bytes; allow up to 64. */
#define MAX_ID 64

static int read_at(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = pread(fd, buf, n, off);

	return r == (ssize_t)n ? 0 : -1;
}

/* Finds the build-id note in notes[0..n) (4-byte aligned entries). */
static int scan_notes(const unsigned char *notes, size_t n, char *hex, size_t size)
{
	size_t off = 0;

	while (n - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr h;
		size_t namesz, descsz;

		memcpy(&h, notes + off, sizeof h);
		off += sizeof h;
		namesz = ((size_t)h.n_namesz + 3) & ~(size_t)3;
		descsz = ((size_t)h.n_descsz + 3) & ~(size_t)3;
		if (namesz > n - off || descsz > n - off - namesz)
			return -1;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
		    memcmp(notes + off, "GNU", 4) == 0 && h.n_descsz > 0 &&
		    h.n_descsz <= MAX_ID && h.n_descsz * 2 < size) {
			const unsigned char *d = notes + off + namesz;
			size_t i;

			for (i = 0; i < h.n_descsz; i++) {
				hex[2 * i] = "0123456789abcdef"[d[i] >> 4];
				hex[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
			}
			hex[2 * i] = '\0';
			return 0;
		}
		off += namesz + descsz;
	}
	return -1;
}

int fk_enc_read_build_id(const char *path, uint64_t inode, char *hex, size_t size)
{
	Elf64_Ehdr eh;
	struct stat st;
	unsigned char *notes = NULL;
	int fd, rc = -1;
	size_t i;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	/* The file at path now must be the one that was mapped. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != inode)
		goto out;
	if (read_at(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256 ||
	    eh.e_phoff > (uint64_t)st.st_size)
		goto out;
	notes = malloc(MAX_NOTES);
	if (!notes)
		goto out;
	for (i = 0; i < eh.e_phnum && rc < 0; i++) {
		Elf64_Phdr ph;

		if (read_at(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) < 0)
			break;
		if (ph.p_type != PT_NOTE || ph.p_filesz > MAX_NOTES ||
		    ph.p_offset > (uint64_t)st.st_size ||
		    ph.p_filesz > (uint64_t)st.st_size - ph.p_offset)
			continue;
		if (read_at(fd, notes, ph.p_filesz, (off_t)ph.p_offset) < 0)
			continue;
		rc = scan_notes(notes, ph.p_filesz, hex, size);
	}
out:
	free(notes);
	close(fd);
	return rc;
}
