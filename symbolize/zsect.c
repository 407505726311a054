/* SPDX-License-Identifier: MIT */
/* Compressed ELF sections (SHF_COMPRESSED with ELFCOMPRESS_ZLIB, gABI
 * "Section Compression") inflated here rather than by libelf, so that the
 * sections of one debug file can be inflated on different threads before
 * libdw opens the file, and with libdeflate, which inflates a whole buffer
 * of known size twice as fast as zlib's streaming inflate. Inflating
 * touches nothing but the section's own record and reads the file's image;
 * installing the bytes in the ELF handle is done by the handle's owner.
 * Installing writes into libelf's own Elf_Data: see FK_ELF_INTERNALS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <lzma.h>

#include "limits.h"
#include "symbolize_int.h"

/* Bytes the xz stream p[0..len) inflates to, counted by inflating into a
 * scratch buffer and stopping past max (MiniDebugInfo, .gnu_debugdata:
 * libdwfl inflates it with no bound, and xz reaches 7000:1). A stream
 * liblzma rejects counts what it gave before (libdwfl fails on it too). */
static uint64_t xz_size(const unsigned char *p, size_t len, uint64_t max)
{
	lzma_stream z = LZMA_STREAM_INIT;
	/* The decoder's own memory (its dictionary) is bounded as well. */
	if (lzma_stream_decoder(&z, FK_MAX_XZ_MEMORY, 0) != LZMA_OK)
		return 0;
	unsigned char *buf = malloc(1 << 16);
	uint64_t total = 0;
	if (buf) {
		z.next_in = p;
		z.avail_in = len;
		lzma_ret r = LZMA_OK;
		while (r == LZMA_OK && z.total_out <= max) {
			z.next_out = buf;
			z.avail_out = 1 << 16;
			r = lzma_code(&z, LZMA_FINISH);
		}
		total = z.total_out;
		/* A dictionary past the memory bound is refused whatever the
		 * output, as libdwfl's unbounded decoder would allocate it. */
		if (r == LZMA_MEMLIMIT_ERROR)
			total = UINT64_MAX;
	}
	free(buf);
	lzma_end(&z);
	return total;
}

/* The inflated size a section claims: its Chdr's ch_size, for a GNU
 * .zdebug_ section the big-endian size after "ZLIB", for .gnu_debugdata
 * what it inflates to (up to just past max); 0 for none of these. */
static uint64_t claimed(Elf *e, Elf_Scn *scn, size_t shstrndx,
			const unsigned char *img, size_t filesize, uint64_t max)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return 0;
	if (sh.sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;
		if (!gelf_getchdr(scn, &ch))
			return 0;
		return ch.ch_size;
	}
	const char *name = elf_strptr(e, shstrndx, sh.sh_name);
	if (name && strcmp(name, ".gnu_debugdata") == 0 && sh.sh_offset <= filesize &&
	    sh.sh_size <= filesize - sh.sh_offset)
		return xz_size(img + sh.sh_offset, sh.sh_size, max);
	if (!name || strncmp(name, ".zdebug", 7) != 0 ||
	    sh.sh_offset > filesize || sh.sh_size < 12 ||
	    sh.sh_size > filesize - sh.sh_offset)
		return 0;
	const unsigned char *p = img + sh.sh_offset;
	if (memcmp(p, "ZLIB", 4) != 0)
		return 0;
	uint64_t v = 0;
	for (int i = 4; i < 12; i++)
		v = v << 8 | p[i];
	return v;
}

int fk_zsect_check(Elf *e, char *why, size_t n)
{
	size_t filesize, shstrndx;
	const unsigned char *img = (const unsigned char *)elf_rawfile(e, &filesize);
	if (!img || elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	uint64_t max = (uint64_t)filesize * FK_MAX_ZSECT_RATIO, sum = 0;
	if (max < FK_MAX_ZSECT_FLOOR)
		max = FK_MAX_ZSECT_FLOOR;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		uint64_t c = claimed(e, scn, shstrndx, img, filesize, max - sum);
		if (c > max - sum) {
			snprintf(why, n, "compressed sections inflate to more than %llu "
				 "bytes (%d times the file's size, at least %zu MiB)",
				 (unsigned long long)max, FK_MAX_ZSECT_RATIO,
				 FK_MAX_ZSECT_FLOOR >> 20);
			return -1;
		}
		sum += c;
	}
	return 0;
}

int fk_zsect_find(Elf *e, Elf_Scn *scn, struct fk_zsect *z)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t filesize;
	const unsigned char *img = (const unsigned char *)elf_rawfile(e, &filesize);
	memset(z, 0, sizeof *z);
	if (!img || !gelf_getehdr(e, &eh) || !gelf_getshdr(scn, &sh) ||
	    !(sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS)
		return 0;
	/* Only the host's byte order: a foreign file is left to libelf. */
	const uint16_t one = 1;
	int little = *(const unsigned char *)&one == 1;
	if (eh.e_ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB))
		return 0;
	size_t hdr = eh.e_ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Chdr)
							: sizeof(Elf32_Chdr);
	if (sh.sh_offset > filesize || sh.sh_size > filesize - sh.sh_offset ||
	    sh.sh_size <= hdr)
		return 0;
	const unsigned char *p = img + sh.sh_offset;
	uint64_t type, size, align;
	if (eh.e_ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Chdr ch;
		memcpy(&ch, p, sizeof ch);
		type = ch.ch_type, size = ch.ch_size, align = ch.ch_addralign;
	} else {
		Elf32_Chdr ch;
		memcpy(&ch, p, sizeof ch);
		type = ch.ch_type, size = ch.ch_size, align = ch.ch_addralign;
	}
	if (type != ELFCOMPRESS_ZLIB || size == 0 || size > (uint64_t)1 << 34 ||
	    (size_t)sh.sh_size - hdr > (size_t)UINT32_MAX)
		return 0;
	z->ndx = elf_ndxscn(scn);
	z->src = p + hdr;
	z->srclen = (size_t)sh.sh_size - hdr;
	z->dstlen = (size_t)size;
	z->align = align;
	return 1;
}

void fk_zsect_inflate(struct fk_zsect *z)
{
	if (z->done)
		return;
	z->done = -1;
	unsigned char *dst = malloc(z->dstlen);
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	/* The stream must fill exactly the size the header announces. */
	if (dst && d && libdeflate_zlib_decompress(d, z->src, z->srclen, dst,
						   z->dstlen, NULL) == LIBDEFLATE_SUCCESS) {
		z->dst = dst;
		z->done = 1;
	} else {
		free(dst);
	}
	libdeflate_free_decompressor(d);
}

int fk_zsect_internals(void)
{
	const char *off = getenv("FLAMEKIT_NO_ELF_INTERNALS");
	return FK_ELF_INTERNALS && !(off && strcmp(off, "1") == 0);
}

int fk_zsect_install(Elf *e, struct fk_zsect *z)
{
#if !FK_ELF_INTERNALS
	/* Untried with this elfutils: the section stays libelf's to inflate. */
	(void)e;
	(void)z;
	return -1;
#else
	if (z->done != 1)
		return -1;
	Elf_Scn *scn = elf_getscn(e, z->ndx);
	GElf_Shdr sh;
	Elf_Data *data;
	if (!scn || !gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
		return -1;
	sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh.sh_size = z->dstlen;
	sh.sh_addralign = z->align;
	if (!gelf_update_shdr(scn, &sh))
		return -1;
	/* The bytes stay ours (freed after the handle); libelf frees only
	 * buffers it allocated itself. */
	data->d_buf = z->dst;
	data->d_size = z->dstlen;
	data->d_type = ELF_T_BYTE;
	data->d_off = 0;
	data->d_align = z->align ? z->align : 1;
	return 0;
#endif
}

void fk_zsect_release(struct fk_zsect *z)
{
	free(z->dst);
	z->dst = NULL;
	z->done = 0;
}
