/* SPDX-License-Identifier: MIT */
/* The hook's settings read from its environment when it starts serving
 * (libflamekit-hook(3), ENVIRONMENT): each value checked strictly, and a
 * bad one refused with a sentence naming it, never replaced by the
 * default. The settings themselves live here, in the resident half. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

/* The settings, held by the resident half and read by both (hook_int.h
 * says what each is). */
double fk_snap_interval = FK_HOOK_SNAPSHOT_S;
size_t fk_snap_budget = (size_t)FK_HOOK_SNAPSHOT_MB << 20;
size_t fk_serve_cache_mb = FK_HOOK_CACHE_MB;
size_t fk_serve_max_samples = FK_HOOK_MAX_SAMPLES;
struct fk_guard fk_guard;

/* FLAMEKIT_SNAPSHOT_S: 0 (no interval snapshots) or FK_HOOK_SNAPSHOT_S_MIN
 * to 86400 seconds. Below the floor the hook's thread would do little but
 * snapshot (1e-7 kept it at 83 % of a core). */
static int snapshot_s(struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_SNAPSHOT_S");
	double d;

	if (!s || !*s)
		return 0;
	if (fk_parse_double(s, strlen(s), &d) < 0 ||
	    !(d == 0 || (d >= FK_HOOK_SNAPSHOT_S_MIN && d <= 86400)))
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

/* One user of FLAMEKIT_ALLOW, s[0..n): a uid, or a name the system's user
 * database knows. */
static int allow_one(const char *all, const char *s, size_t n, struct fk_guard *g,
		     struct fk_err *err)
{
	char name[64], buf[4096];
	struct passwd pw, *res = NULL;
	uint64_t v;

	if (g->nallow == FK_HOOK_MAX_ALLOW)
		return fk_err_set(err, FK_ELIMIT, 0, "bad FLAMEKIT_ALLOW '%.80s': more than %d "
				  "users", all, FK_HOOK_MAX_ALLOW);
	if (n == 0 || n >= sizeof name)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_ALLOW '%.80s': want user "
				  "names or uids, separated by commas", all);
	if (fk_parse_u64(s, n, &v) == 0) {
		if (v >= (uid_t)-1)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_ALLOW '%.80s': uid "
					  "'%.*s' out of range", all, (int)n, s);
		g->allow[g->nallow++] = (uid_t)v;
		return 0;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	if (getpwnam_r(name, &pw, buf, sizeof buf, &res) != 0 || !res)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_ALLOW '%.80s': no user "
				  "named '%s'", all, name);
	g->allow[g->nallow++] = pw.pw_uid;
	return 0;
}

int fk_env_allow(struct fk_guard *g, struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_ALLOW"), *p, *comma;

	g->nallow = 0;
	if (!s || !*s)
		return 0;
	for (p = s;; p = comma + 1) {
		comma = strchr(p, ',');
		if (allow_one(s, p, comma ? (size_t)(comma - p) : strlen(p), g, err) < 0)
			return -1;
		if (!comma)
			return 0;
	}
}

/* FLAMEKIT_AT_EXIT: the file the heap is written to at exit. Made
 * absolute now, against the start's working folder (a program may change
 * folders before it exits); "%p" stands for the process id, "%%" for '%'.
 * The folder must exist (unless its name holds %p), so a typo fails at
 * start, not silently at exit. */
int fk_env_at_exit(char *path, size_t size, struct fk_err *err)
{
	const char *s = getenv("FLAMEKIT_AT_EXIT");
	size_t n, i, slash = 0;
	struct stat st;
	int each = 0;

	path[0] = '\0';
	if (!s || !*s)
		return 0;
	n = strlen(s);
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && (i + 1 == n || (s[i + 1] != 'p' && s[i + 1] != '%')))
			return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_AT_EXIT '%.80s': a '%%' "
					  "other than %%p (the process id) or %%%%", s);
		if (s[i] == '%')
			each |= s[++i] == 'p';
	}
	if (s[n - 1] == '/')
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_AT_EXIT '%.80s': a folder, "
				  "not a file", s);
	if (s[0] == '/') {
		if (n >= size)
			return fk_err_set(err, FK_ELIMIT, 0, "FLAMEKIT_AT_EXIT longer than %zu bytes",
					  size - 1);
		memcpy(path, s, n + 1);
	} else if (!getcwd(path, size) || strlen(path) + 1 + n >= size) {
		path[0] = '\0';
		return fk_err_set(err, FK_ELIMIT, 0, "bad FLAMEKIT_AT_EXIT '%.80s': its absolute "
				  "path is unknown or longer than %zu bytes", s, size - 1);
	} else {
		strcat(strcat(path, "/"), s);
	}
	for (i = 0; path[i]; i++)
		if (path[i] == '/')
			slash = i;
	path[slash] = '\0';
	if (!memchr(path, '%', slash) && (stat(slash ? path : "/", &st) < 0 || !S_ISDIR(st.st_mode))) {
		fk_err_set(err, FK_EIO, 0, "bad FLAMEKIT_AT_EXIT '%.80s': no folder '%.80s'", s,
			   slash ? path : "/");
		path[0] = '\0';
		return -1;
	}
	path[slash] = '/';
	return 1 + each;
}
