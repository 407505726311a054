/* SPDX-License-Identifier: MIT */
/* The DWARF index shared by dwfile.c (opening the file), dwunits.c (which
 * unit holds an address) and dwinline.c (a unit's inline chains and
 * lines); not used outside these three. */
#ifndef FK_DWLINE_INT_H
#define FK_DWLINE_INT_H

#include <elfutils/libdw.h>

#include "symbolize_int.h"

/* One address range of a subprogram or inlined subroutine, in DIE walk
 * (pre-)order, so that every entry's subtree is ents[i + 1 .. end). */
struct fk_dwent {
	uint64_t lo, hi;
	Dwarf_Off die;
	uint32_t end;
	uint32_t call_file, call_line;
	unsigned inlined : 1;
};

struct fk_dwsub {                      /* a subprogram range */
	uint64_t lo, hi;
	uint32_t ent;
};

/* A unit met so far; its ranges are collected on first use (dwinline.c). */
struct fk_dwcu {
	Dwarf_Die die;
	int built;                     /* 0 not yet, 1 built, -1 failed */
	struct fk_dwent *ents;
	size_t nents, cap;
	struct fk_dwsub *subs;
	size_t nsubs, subcap;
	Dwarf_Files *files;
	size_t nfiles;
	int files_tried;
};

struct fk_dwcurange {
	struct fk_span span;
	uint32_t cu;
};

struct fk_dwline {
	Dwarf *dw;
	Elf *elf;                      /* our own handle, or NULL (libdwfl's) */
	int fd;
	struct fk_zsect *z;            /* compressed sections lookups read */
	size_t nz;
	uint64_t bias;                 /* module address = DWARF address + bias */
	struct fk_dwcu *cus;           /* units met so far */
	size_t ncus, cucap;
	struct fk_u64map byoff;        /* unit DIE offset -> index in cus */
	Dwarf_Aranges *ar;             /* .debug_aranges (libdw's), or NULL */
	size_t nar;
	int ar_loaded;
	int indexed;                   /* every unit's ranges are in rg */
	struct fk_dwcurange *rg;
	size_t nrg;
	const char *missing_dwo;       /* a skeleton's .dwo libdw did not find */
	int dwo_refused;               /* ... because it is no regular file */
	char *dir;                     /* folder of the ELF file, or NULL */
};

/* dwunits.c: the unit holding DWARF address a (not biased), or NULL. */
struct fk_dwcu *fk_dwunits_find(struct fk_dwline *d, uint64_t a);

#endif
