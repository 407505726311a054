/* SPDX-License-Identifier: MIT */
/* Names for addresses that no symbol covers ("libfoo.so+0x1a2b"), shared
 * by to-folded and from-pprof so that their outputs agree. */
#include "encode_int.h"

#include <inttypes.h>

#include "maps.h"
#include "profile.h"

char *fk_enc_addr_name(char *buf, size_t size, const char *path,
		       uint64_t start, uint64_t file_offset, uint64_t addr)
{
	if (addr >= FK_ADDR_TRUNCATED - 1)
		snprintf(buf, size, "[truncated]");
	else if (!path)
		snprintf(buf, size, "[anon]+0x%" PRIx64, addr);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, fk_maps_basename(path),
			 addr - start + file_offset);
	return buf;
}

const struct fk_mapping *fk_enc_map_of(const struct fk_profile *p, uint64_t addr)
{
	const struct fk_mapping *m = fk_profile_map_of(p, addr);

	return m && m->kind != FK_MAP_ANON ? m : NULL;
}

char *fk_enc_profile_addr_name(char *buf, size_t size, const struct fk_profile *p,
			       uint64_t addr)
{
	const struct fk_mapping *m = fk_enc_map_of(p, addr);

	if (!m)
		return fk_enc_addr_name(buf, size, NULL, 0, 0, addr);
	return fk_enc_addr_name(buf, size, m->path, m->start, m->offset, addr);
}
