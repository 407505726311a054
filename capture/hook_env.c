/* SPDX-License-Identifier: MIT */
/* The hook's settings (hook_env.h): one table of every FLAMEKIT_* variable
 * it reads, and the one place the hook reads its environment. Each value
 * is checked strictly and a bad one refused with a sentence naming it,
 * never replaced by the default (libflamekit-hook(3), ENVIRONMENT). */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

/* The settings and, for each row read at load, why its value was bad
 * ("" when it was not): written here only. */
static struct {
	struct fk_env env;
	char bad[16][sizeof(((struct fk_err *)0)->msg)];
} cf = {
	.env = {
		.dump_dir = ".",
		.max_samples = FK_HOOK_MAX_SAMPLES,
		.snapshot_s = FK_HOOK_SNAPSHOT_S,
		.snapshot_bytes = (size_t)FK_HOOK_SNAPSHOT_MB << 20,
		.cache_mb = FK_HOOK_CACHE_MB,
		.recent = -1,
	},
};

const struct fk_env *fk_env_get(void)
{
	return &cf.env;
}

/* Copies s into dst (size bytes), or -1 with err when it does not fit. */
static int copy(const struct fk_setting *set, const char *s, char *dst, size_t size,
		struct fk_err *err)
{
	size_t n = strlen(s);

	if (n >= size)
		return fk_err_set(err, FK_ELIMIT, 0, "bad %s '%.40s...': longer than %zu bytes",
				  set->name, s, size - 1);
	memcpy(dst, s, n + 1);
	return 0;
}

/* A number within the row's bounds (or 0 when the row says what 0 means). */
static int read_num(const struct fk_setting *set, const char *s, struct fk_env *e,
		    struct fk_err *err)
{
	char *dst = (char *)e + set->off, want[96];
	uint64_t v = 0;
	double d;
	int ok;

	if (set->dbl) {
		ok = fk_parse_double(s, strlen(s), &d) == 0;
	} else {
		ok = fk_parse_u64(s, strlen(s), &v) == 0;
		d = (double)v;
	}
	if (!ok || !((d == 0 && set->zero) || (d >= set->min && d <= set->max)))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad %s '%.40s': want %s", set->name, s,
				  fk_env_bounds(set, want, sizeof want));
	if (set->dbl)
		memcpy(dst, &d, sizeof d);
	else if (set->lng)
		memcpy(dst, &(long){ (long)v }, sizeof(long));
	else
		memcpy(dst, &(size_t){ (size_t)v << set->shift }, sizeof(size_t));
	return 0;
}

static int read_http(const struct fk_setting *set, const char *s, struct fk_env *e,
		     struct fk_err *err)
{
	return copy(set, s, e->http, sizeof e->http, err);
}

/* FLAMEKIT_HTTP_OWNER, FLAMEKIT_AT_EXIT_OWNER: the library's own marks,
 * set for exec'd descendants; a value that is no process id marks none. */
static int read_owner(const struct fk_setting *set, const char *s, struct fk_env *e,
		      struct fk_err *err)
{
	pid_t pid = 0;
	uint64_t v;

	(void)err;
	if (fk_parse_u64(s, strlen(s), &v) == 0 && v > 0 && v <= INT32_MAX)
		pid = (pid_t)v;
	memcpy((char *)e + set->off, &pid, sizeof pid);
	return 0;
}

static int read_signal(const struct fk_setting *set, const char *s, struct fk_env *e,
		       struct fk_err *err)
{
	static const struct { char name[6]; int sig; } sigs[] = {
		{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		{ "WINCH", SIGWINCH }, { "URG", SIGURG },
	};
	const char *w = strncmp(s, "SIG", 3) == 0 ? s + 3 : s;

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (strcmp(w, sigs[i].name) == 0)
			return e->dump_signal = sigs[i].sig, 0;
	return fk_err_set(err, FK_ESYNTAX, 0, "bad %s '%.20s': want USR1, USR2, HUP, WINCH "
			  "or URG", set->name, s);
}

static int read_dump_dir(const struct fk_setting *set, const char *s, struct fk_env *e,
			 struct fk_err *err)
{
	return copy(set, s, e->dump_dir, sizeof e->dump_dir, err);
}

/* FLAMEKIT_AT_EXIT: made absolute now, against the start's working
 * folder (a program may change folders before it exits); "%p" stands for
 * the process id, "%%" for '%'. The folder must exist (unless its name
 * holds %p), so a typo fails at start, not silently at exit. */
static int read_at_exit(const struct fk_setting *set, const char *s, struct fk_env *e,
			struct fk_err *err)
{
	char *path = e->at_exit;
	size_t size = sizeof e->at_exit, n = strlen(s), i, slash = 0;
	struct stat st;
	int each = 0;

	(void)set;
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
	e->at_exit_each = each;
	return 0;
}

/* FLAMEKIT_MALLCTL: a function's name, as the linker spells it. */
static int read_mallctl(const struct fk_setting *set, const char *s, struct fk_env *e,
			struct fk_err *err)
{
	if (copy(set, s, e->mallctl, sizeof e->mallctl, err) < 0)
		return -1;
	if (s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@")])
		return fk_err_set(err, FK_ESYNTAX, 0, "bad %s '%.40s': want a function's name",
				  set->name, s);
	return 0;
}

/* FLAMEKIT_UNWIND: another word gives the hook's backtrace, with the line
 * fk_unwind_install writes (never refused: the host must not lose its
 * profile to a typo in a setting that only says whose backtrace). */
static int read_unwind(const struct fk_setting *set, const char *s, struct fk_env *e,
		       struct fk_err *err)
{
	(void)set;
	(void)err;
	snprintf(e->unwind_text, sizeof e->unwind_text, "%.40s", s);
	e->unwind = strcmp(s, "jemalloc") == 0 ? FK_UNWIND_JEMALLOC :
		    strcmp(s, "flamekit") == 0 ? FK_UNWIND_FLAMEKIT : FK_UNWIND_OTHER;
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

/* FLAMEKIT_ALLOW: user names and uids, separated by commas (names are
 * looked up when the server starts, never at load: the user database may
 * load NSS modules). */
static int read_allow(const struct fk_setting *set, const char *s, struct fk_env *e,
		      struct fk_err *err)
{
	const char *p, *comma;

	(void)set;
	for (p = s;; p = comma + 1) {
		comma = strchr(p, ',');
		if (allow_one(s, p, comma ? (size_t)(comma - p) : strlen(p), &e->guard, err) < 0)
			return -1;
		if (!comma)
			return 0;
	}
}

/* FLAMEKIT_TOKEN: a secret, never quoted in a message. */
static int read_token(const struct fk_setting *set, const char *s, struct fk_env *e,
		      struct fk_err *err)
{
	if (strlen(s) >= sizeof e->guard.token)
		return fk_err_set(err, FK_ELIMIT, 0, "%s too long", set->name);
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad %s: a control character in it "
					  "(no client can send it)", set->name);
	memcpy(e->guard.token, s, strlen(s) + 1);
	return 0;
}

static int read_remote(const struct fk_setting *set, const char *s, struct fk_env *e,
		       struct fk_err *err)
{
	if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad %s '%.20s': want 0 or 1", set->name, s);
	e->allow_remote = s[0] == '1';
	return 0;
}

#define NUM(field) .read = read_num, .off = offsetof(struct fk_env, field)

/* Every setting, in the order their values are checked: those read at
 * load first, then those fk_hook_start reads, as it always checked them. */
static const struct fk_setting table[] = {
	{ "FLAMEKIT_HTTP", "address", "unset (no server)",
	  "where to serve: HOST:PORT, [V6ADDR]:PORT or unix:PATH", 0, .read = read_http },
	{ "FLAMEKIT_HTTP_OWNER", "process id", "set by the library",
	  "the process that serves FLAMEKIT_HTTP; exec'd descendants with another pid stay quiet",
	  0, .read = read_owner, .off = offsetof(struct fk_env, http_owner) },
	{ "FLAMEKIT_DUMP_SIGNAL", "signal", "unset (no signal dumps)",
	  "USR1, USR2, HUP, WINCH or URG: on it a raw dump is written", 0, .read = read_signal },
	{ "FLAMEKIT_DUMP_DIR", "folder", "the current folder",
	  "where the signal's dumps go", 0, .read = read_dump_dir },
	{ "FLAMEKIT_AT_EXIT", "file", "unset (no dump at exit)",
	  "a file the heap is written to when the program exits normally (%p: the pid)",
	  0, .read = read_at_exit },
	{ "FLAMEKIT_AT_EXIT_OWNER", "process id", "set by the library",
	  "the process that writes FLAMEKIT_AT_EXIT; exec'd descendants with another pid do not",
	  0, .read = read_owner, .off = offsetof(struct fk_env, at_exit_owner) },
	{ "FLAMEKIT_MALLCTL", "function name", "mallctl, je_mallctl and _rjem_mallctl, in order",
	  "the name of the jemalloc mallctl to drive", 0, .read = read_mallctl },
	{ "FLAMEKIT_UNWIND", "flamekit or jemalloc", "flamekit",
	  "whose backtrace jemalloc takes of a sampled allocation", 0, .read = read_unwind },
	{ "FLAMEKIT_MAX_SAMPLES", "count", FK_HOOK_STR(FK_HOOK_MAX_SAMPLES),
	  "the sample limit of a pprof whose request gives no max_samples", 1,
	  NUM(max_samples), .max = UINT32_MAX, .zero = "no limit" },
	{ "FLAMEKIT_SNAPSHOT_S", "seconds", FK_HOOK_STR(FK_HOOK_SNAPSHOT_S),
	  "seconds between interval snapshots", 1,
	  NUM(snapshot_s), .dbl = 1, .min = FK_HOOK_SNAPSHOT_S_MIN, .max = 86400,
	  .zero = "no interval snapshots", .unit = "seconds" },
	{ "FLAMEKIT_SNAPSHOT_MB", "MiB", FK_HOOK_STR(FK_HOOK_SNAPSHOT_MB),
	  "the snapshot ring's memory budget", 1,
	  NUM(snapshot_bytes), .shift = 20, .min = 1, .max = 1 << 20 },
	{ "FLAMEKIT_CACHE_MB", "MiB", FK_HOOK_STR(FK_HOOK_CACHE_MB),
	  "the module cache's budget, and as much again for what a scrape keeps for the next",
	  1, NUM(cache_mb), .max = FK_HOOK_CACHE_MB_MAX, .zero = "no cache" },
	{ "FLAMEKIT_RECENT", "count", FK_HOOK_STR(FK_HOOK_RECENT),
	  "the sampled allocations whose lifetimes jemalloc keeps", 1,
	  NUM(recent), .lng = 1, .max = (double)FK_HOOK_RECENT_MAX, .zero = "no lifetimes",
	  .unit = "records" },
	{ "FLAMEKIT_ALLOW", "users", "none",
	  "users who may ask besides root and the program's own: names or uids, by commas",
	  1, .read = read_allow },
	{ "FLAMEKIT_TOKEN", "secret", "none",
	  "the bearer token every request must carry", 1, .read = read_token },
	{ "FLAMEKIT_HTTP_ALLOW_REMOTE", "0 or 1", "0",
	  "1 lets FLAMEKIT_HTTP be an address other than loopback (with FLAMEKIT_TOKEN)",
	  1, .read = read_remote },
};
#define NSET (sizeof table / sizeof table[0])
_Static_assert(NSET <= sizeof cf.bad / sizeof cf.bad[0], "cf.bad holds a message a row");

const struct fk_setting *fk_env_table(size_t *n)
{
	*n = NSET;
	return table;
}

/* v as a message says it: no exponent, no needless fraction. */
static void num_text(double v, char *buf, size_t size)
{
	if (v == (double)(uint64_t)v)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "%g", v);
}

const char *fk_env_bounds(const struct fk_setting *set, char *buf, size_t size)
{
	char lo[32], hi[32];
	size_t k = 0;

	buf[0] = '\0';
	if (set->read != read_num)
		return buf;
	num_text(set->min, lo, sizeof lo);
	num_text(set->max, hi, sizeof hi);
	if (set->zero)
		k = (size_t)snprintf(buf, size, "0 (%s) %s", set->zero, set->min > 0 ? "or " : "to ");
	if (k < size)
		snprintf(buf + k, size - k, "%s%s%s%s%s", set->min > 0 || !set->zero ? lo : "",
			 set->min > 0 || !set->zero ? " to " : "", hi, set->unit ? " " : "",
			 set->unit ? set->unit : "");
	return buf;
}

/* Reads the rows of one part into e; with stop, up to the first bad
 * value (-1, err), else every row, each bad one kept aside in cf.bad. */
static int read_rows(int at_start, struct fk_env *e, int stop, struct fk_err *err)
{
	for (size_t i = 0; i < NSET; i++) {
		const char *s;

		if (table[i].at_start != at_start)
			continue;
		cf.bad[i][0] = '\0';
		s = getenv(table[i].name);
		if (!s || !*s || table[i].read(&table[i], s, e, err) == 0)
			continue;
		if (stop)
			return -1;
		snprintf(cf.bad[i], sizeof cf.bad[i], "%s", err->msg);
	}
	return 0;
}

/* Copies variable name into dst when set and shorter than size, else "". */
static void other(const char *name, char *dst, size_t size)
{
	const char *s = getenv(name);

	snprintf(dst, size, "%s", s && strlen(s) < size ? s : "");
}

void fk_env_load(void)
{
	struct fk_err err;

	fk_err_init(&err, NULL);
	read_rows(0, &cf.env, 0, &err);
	/* A longer TMPDIR would not leave room for the state folder's name
	 * (hook_state.c); /tmp serves instead, as for a relative one. */
	other("TMPDIR", cf.env.tmpdir, sizeof cf.env.tmpdir);
}

const char *fk_env_conf(const char *var)
{
	size_t n = strlen(var);

	if (n < 11 || strcmp(var + n - 11, "MALLOC_CONF") != 0)
		return NULL;
	return getenv(var);
}

int fk_env_bad(const char *name, struct fk_err *err)
{
	for (size_t i = 0; i < NSET; i++)
		if (strcmp(table[i].name, name) == 0 && cf.bad[i][0])
			return fk_err_set(err, FK_ESYNTAX, 0, "%s", cf.bad[i]);
	return 0;
}

int fk_env_start(int loopback, const char *addr, struct fk_err *err)
{
	struct fk_env e = cf.env;

	e.max_samples = FK_HOOK_MAX_SAMPLES;
	e.snapshot_s = FK_HOOK_SNAPSHOT_S;
	e.snapshot_bytes = (size_t)FK_HOOK_SNAPSHOT_MB << 20;
	e.cache_mb = FK_HOOK_CACHE_MB;
	e.recent = -1;
	e.allow_remote = 0;
	memset(&e.guard, 0, sizeof e.guard);
	if (read_rows(1, &e, 1, err) < 0)
		return -1;
	if (!loopback) {
		if (!e.allow_remote || !e.guard.token[0])
			return fk_err_set(err, FK_EUNSUPP, 0,
					  "refusing to listen on non-loopback address '%s': set "
					  "FLAMEKIT_HTTP_ALLOW_REMOTE=1 and FLAMEKIT_TOKEN to allow it", addr);
		e.guard.remote = 1;
	}
	/* Only what a start reads: the rest may be read meanwhile (a
	 * signal-only loop that this start replaces still runs). */
	cf.env.max_samples = e.max_samples;
	cf.env.snapshot_s = e.snapshot_s;
	cf.env.snapshot_bytes = e.snapshot_bytes;
	cf.env.cache_mb = e.cache_mb;
	cf.env.recent = e.recent;
	cf.env.allow_remote = e.allow_remote;
	cf.env.guard = e.guard;
	return 0;
}
