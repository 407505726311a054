/* SPDX-License-Identifier: MIT */
/* The hook's settings read from its environment when it starts serving
 * (libflamekit-hook(3), ENVIRONMENT): each value checked strictly, and a
 * bad one refused with a sentence naming it, never replaced by the
 * default. */
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"
#include "num.h"

/* FLAMEKIT_SNAPSHOT_S: 0 (no interval snapshots) or FK_HOOK_SNAPSHOT_S_MIN
 * to 86400 seconds. Below the floor the hook's thread would do little but
 * snapshot (1e-7 kept it at 83 % of a core). */
static int snapshot_s(struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_SNAPSHOT_S");
	char *end;
	double d;

	if (!s || !*s)
		return 0;
	d = strtod(s, &end);
	if (*end || !(d == 0 || (d >= FK_HOOK_SNAPSHOT_S_MIN && d <= 86400)))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_SNAPSHOT_S '%.40s': want 0 "
				  "(no interval snapshots) or %g to 86400 seconds", s,
				  FK_HOOK_SNAPSHOT_S_MIN);
	fk_snap_interval = d;
	return 0;
}

/* FLAMEKIT_SNAPSHOT_MB: the ring's budget, 1 to 1048576 MiB. */
static int snapshot_mb(struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_SNAPSHOT_MB");
	uint64_t v;

	if (!s || !*s)
		return 0;
	if (fk_parse_u64(s, strlen(s), &v) < 0 || v < 1 || v > 1u << 20)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_SNAPSHOT_MB '%.40s': want "
				  "1 to 1048576", s);
	fk_snap_budget = (size_t)v << 20;
	return 0;
}

/* FLAMEKIT_CACHE_MB: the module cache's budget, 0 (no cache) to
 * FK_HOOK_CACHE_MB_MAX MiB. */
static int cache_mb(struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_CACHE_MB");
	uint64_t v;

	if (!s || !*s)
		return 0;
	if (fk_parse_u64(s, strlen(s), &v) < 0 || v > FK_HOOK_CACHE_MB_MAX)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_CACHE_MB '%.40s': want 0 "
				  "(no cache) to %d", s, FK_HOOK_CACHE_MB_MAX);
	fk_serve_cache_mb = (size_t)v;
	return 0;
}

/* FLAMEKIT_RECENT: the sampled allocations whose lifetimes are kept, 0
 * (off) to FK_HOOK_RECENT_MAX. */
static int recent(struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_RECENT");
	uint64_t v;

	if (!s || !*s)
		return 0;
	if (fk_parse_u64(s, strlen(s), &v) < 0 || v > (uint64_t)FK_HOOK_RECENT_MAX)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_RECENT '%.40s': want 0 "
				  "(no lifetimes) to %ld records", s, FK_HOOK_RECENT_MAX);
	fk_recent_want = (long)v;
	return 0;
}

int fk_env_read(struct fk_err *err)
{
	if (snapshot_s(err) < 0 || snapshot_mb(err) < 0 || cache_mb(err) < 0 || recent(err) < 0)
		return -1;
	return 0;
}
