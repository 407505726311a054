/* Compressed ELF sections (SHF_COMPRESSED with ELFCOMPRESS_ZLIB, gABI
 * "Section Compression") inflated here rather than by libelf, so that the
 * sections of one debug file can be inflated on different threads before
 * libdw opens the file. Inflating touches nothing but the section's own
 * record and reads the file's image; installing the bytes in the ELF handle
 * is done by the handle's owner. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <zlib.h>

#include "symbolize_int.h"

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

#define HUGE ((size_t)2 << 20)

/* Room for n inflated bytes. Large sections get transparent huge pages
 * where the system allows them: a few faults instead of one a page. */
static unsigned char *alloc(size_t n)
{
	if (n < HUGE)
		return malloc(n);
	size_t len = (n + HUGE - 1) / HUGE * HUGE;
	unsigned char *p = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Align to a huge page and give back the slack. */
	size_t lead = (HUGE - (uintptr_t)p % HUGE) % HUGE;
	if (lead)
		munmap(p, lead);
	if (HUGE - lead)
		munmap(p + lead + len, HUGE - lead);
	madvise(p + lead, len, MADV_HUGEPAGE);
	return p + lead;
}

static void unalloc(unsigned char *p, size_t n)
{
	if (n < HUGE)
		free(p);
	else
		munmap(p, (n + HUGE - 1) / HUGE * HUGE);
}

void fk_zsect_inflate(struct fk_zsect *z)
{
	if (z->done)
		return;
	z->done = -1;
	unsigned char *dst = alloc(z->dstlen);
	if (!dst)
		return;
	z_stream s;
	memset(&s, 0, sizeof s);
	if (inflateInit(&s) != Z_OK) {
		unalloc(dst, z->dstlen);
		return;
	}
	s.next_in = (unsigned char *)z->src;
	s.avail_in = (uInt)z->srclen;
	size_t out = 0;
	int rc = Z_OK;
	/* avail_out is 32 bits: feed the output in chunks. */
	while (rc == Z_OK && out < z->dstlen) {
		size_t chunk = z->dstlen - out;
		if (chunk > (size_t)1 << 30)
			chunk = (size_t)1 << 30;
		s.next_out = dst + out;
		s.avail_out = (uInt)chunk;
		rc = inflate(&s, Z_FINISH);
		out += chunk - s.avail_out;
		if (rc == Z_BUF_ERROR && s.avail_out == 0)
			rc = Z_OK;
	}
	inflateEnd(&s);
	/* The stream must end exactly at the size the header announces. */
	if (rc != Z_STREAM_END || out != z->dstlen) {
		unalloc(dst, z->dstlen);
		return;
	}
	z->dst = dst;
	z->done = 1;
}

int fk_zsect_install(Elf *e, struct fk_zsect *z)
{
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
}

void fk_zsect_release(struct fk_zsect *z)
{
	if (z->dst)
		unalloc(z->dst, z->dstlen);
	z->dst = NULL;
	z->done = 0;
}
