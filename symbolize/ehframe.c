/* SPDX-License-Identifier: MIT */
/* Function starts from the unwind tables: the binary-search table of
 * .eh_frame_hdr (LSB "Exception Frame Header", PT_GNU_EH_FRAME) gives every
 * FDE's initial location, sorted; libdw's CFI reader confirms that an FDE
 * really covers the address. Stripped files keep these tables, so an
 * address outside every sized symbol can still be named after the start of
 * its function. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "search.h"
#include "symbolize_int.h"

struct ehtab {
	uint64_t *starts;              /* module addresses, sorted */
	size_t n;
};

/* Reads one value encoded per the DW_EH_PE_* byte enc at *pos of buf
 * (len bytes, whose first byte lives at address base). 0 or -1. */
static int read_enc(const unsigned char *buf, size_t len, size_t *pos,
		    unsigned enc, uint64_t base, uint64_t *out)
{
	size_t sz;
	switch (enc & 0x0f) {
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: sz = 2; break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: sz = 4; break;
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: sz = 8; break;
	default: return -1;
	}
	if (*pos > len || sz > len - *pos)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < sz; i++)
		v |= (uint64_t)buf[*pos + i] << (8 * i);   /* little-endian only */
	if ((enc & 0x08) && sz < 8 && (v >> (8 * sz - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * sz);              /* sign-extend */
	switch (enc & 0x70) {
	case 0: break;
	case DW_EH_PE_pcrel: v += base + *pos; break;
	case DW_EH_PE_datarel: v += base; break;
	default: return -1;
	}
	*pos += sz;
	*out = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static struct ehtab *load(Dwfl_Module *mod)
{
	struct ehtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return t;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return t;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
						   ph.p_filesz, ELF_T_BYTE);
		if (!d || d->d_size < 4)
			return t;
		const unsigned char *b = d->d_buf;
		size_t len = d->d_size, pos = 4;
		uint64_t base = ph.p_vaddr, ehptr, count;
		if (b[0] != 1 || b[2] == DW_EH_PE_omit || b[3] == DW_EH_PE_omit)
			return t;
		if (read_enc(b, len, &pos, b[1], base, &ehptr) != 0 ||
		    read_enc(b, len, &pos, b[2], base, &count) != 0)
			return t;
		/* Each entry is two values of table_enc; bound count by the
		 * bytes present before trusting it. */
		if (count == 0 || count > (len - pos) / 4)
			return t;
		t->starts = malloc(count * sizeof *t->starts);
		if (!t->starts)
			return t;
		size_t n = 0;
		for (uint64_t k = 0; k < count; k++) {
			uint64_t loc, fde;
			if (read_enc(b, len, &pos, b[3], base, &loc) != 0 ||
			    read_enc(b, len, &pos, b[3], base, &fde) != 0)
				break;
			t->starts[n++] = loc + bias;
		}
		/* The table is sorted by definition; sort anyway so a bad file
		 * cannot break the binary search. */
		if (n > 1)
			qsort(t->starts, n, sizeof *t->starts, cmp_u64);
		t->n = n;
		return t;
	}
	return t;
}

int fk_ehframe_func_start(Dwfl_Module *mod, void **cache, uint64_t addr,
			  uint64_t *start)
{
	if (!*cache)
		*cache = load(mod);
	struct ehtab *t = *cache;
	if (!t || t->n == 0)
		return -1;
	size_t lo = fk_count_le(t->starts, t->n, sizeof *t->starts, 0, addr);
	if (lo == 0)
		return -1;
	uint64_t cand = t->starts[lo - 1];
	/* The table has no end addresses: ask libdw whether an FDE covers
	 * addr at all (gaps between functions have none) and whether its
	 * row starts at or after the candidate. */
	Dwarf_Addr cbias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &cbias);
	if (!cfi)
		return -1;
	Dwarf_Frame *f;
	if (dwarf_cfi_addrframe(cfi, addr - cbias, &f) != 0)
		return -1;
	Dwarf_Addr s, e;
	bool sig;
	int ok = dwarf_frame_info(f, &s, &e, &sig) >= 0 && s + cbias >= cand &&
		 addr < e + cbias;
	free(f);
	if (!ok)
		return -1;
	*start = cand;
	return 0;
}

void fk_ehframe_release(void *cache)
{
	struct ehtab *t = cache;
	if (t)
		free(t->starts);
	free(t);
}
