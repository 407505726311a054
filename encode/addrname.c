/* Names for addresses that no symbol covers ("libfoo.so+0x1a2b"), and the
 * one rounding rule of encoded values; shared by to-folded, to-pprof and
 * from-pprof so that their outputs agree. */
#include "encode_int.h"

#include <inttypes.h>
#include <math.h>

#include "maps.h"
#include "profile.h"

char *fk_enc_addr_name(char *buf, size_t size, const char *path,
		       uint64_t start, uint64_t file_offset, uint64_t addr)
{
	if (!path)
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

int64_t fk_enc_round(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)llround(v);
}

int64_t fk_enc_round_next(struct fk_enc_rounder *r, double v)
{
	int64_t target;

	if (v == 0 || isnan(v))
		return 0;
	r->exact += v;
	target = fk_enc_round(r->exact);
	v = (double)target - (double)r->emitted;
	r->emitted = target;
	return fk_enc_round(v);
}
