/* SPDX-License-Identifier: MIT */
/* Unit tests of capture/hook_env.c, the hook's settings: each row's bounds
 * and its message for a bad value, defaults, the load and start parts.
 * With --print-settings it prints the table instead, one row a line
 * (NAME, TYPE, DEFAULT, BOUNDS or -, HELP, tab-separated), which
 * tests/docs/hook-env.t checks the man pages against. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "hook_int.h"

static int print_settings(void)
{
	const struct fk_setting *tab;
	char bounds[128];
	size_t n;

	tab = fk_env_table(&n);
	/* A field is never empty (a shell's read would merge two tabs). */
	for (size_t i = 0; i < n; i++) {
		fk_env_bounds(&tab[i], bounds, sizeof bounds);
		printf("%s\t%s\t%s\t%s\t%s\n", tab[i].name, tab[i].type, tab[i].deflt,
		       bounds[0] ? bounds : "-", tab[i].help);
	}
	return ferror(stdout) ? 1 : 0;
}

/* The message a start gives with name=value (loopback), or "(started)". */
static const char *start_with(const char *name, const char *value)
{
	static struct fk_err err;

	fk_err_init(&err, NULL);
	setenv(name, value, 1);
	if (fk_env_start(1, "127.0.0.1:1", &err) == 0)
		snprintf(err.msg, sizeof err.msg, "(started)");
	unsetenv(name);
	return err.msg;
}

/* The message loading with name=value leaves for name, or "(good)". */
static const char *load_with(const char *name, const char *value)
{
	static struct fk_err err;

	fk_err_init(&err, NULL);
	setenv(name, value, 1);
	fk_env_load();
	if (fk_env_bad(name, &err) == 0)
		snprintf(err.msg, sizeof err.msg, "(good)");
	unsetenv(name);
	return err.msg;
}

static void test_defaults(void)
{
	const struct fk_env *e = fk_env_get();
	struct fk_err err;

	fk_env_load();
	fk_err_init(&err, NULL);
	T_OK(fk_env_start(1, "127.0.0.1:1", &err) == 0, "nothing set: starts");
	T_EQ_INT(e->max_samples, FK_HOOK_MAX_SAMPLES, "max_samples default");
	T_OK(e->snapshot_s == FK_HOOK_SNAPSHOT_S, "snapshot_s default");
	T_EQ_INT(e->snapshot_bytes, (size_t)FK_HOOK_SNAPSHOT_MB << 20, "snapshot budget default");
	T_EQ_INT(e->cache_mb, FK_HOOK_CACHE_MB, "cache_mb default");
	T_EQ_INT(e->recent, -1, "recent: not given");
	T_EQ_STR(e->dump_dir, ".", "dump_dir default");
	T_EQ_INT(e->dump_signal, 0, "no dump signal");
	T_EQ_INT(e->unwind, FK_UNWIND_FLAMEKIT, "unwind default");
	T_EQ_STR(e->http, "", "no address");
	T_EQ_INT(e->guard.nallow, 0, "nobody allowed");
	T_EQ_STR(e->guard.token, "", "no token");
}

static void test_start(void)
{
	const struct fk_env *e = fk_env_get();
	struct fk_err err;

	/* Each row's refusal: the variable, its value, the whole message. */
	static const struct { const char *name, *value, *msg; } bad[] = {
		{ "FLAMEKIT_CACHE_MB", "64MB",
		  "bad FLAMEKIT_CACHE_MB '64MB': want 0 (no cache) to 1048576" },
		{ "FLAMEKIT_CACHE_MB", "1048577",
		  "bad FLAMEKIT_CACHE_MB '1048577': want 0 (no cache) to 1048576" },
		{ "FLAMEKIT_SNAPSHOT_S", "1e-7", "bad FLAMEKIT_SNAPSHOT_S '1e-7': want 0 (no "
		  "interval snapshots) or 0.5 to 86400 seconds" },
		{ "FLAMEKIT_SNAPSHOT_MB", "0", "bad FLAMEKIT_SNAPSHOT_MB '0': want 1 to 1048576" },
		{ "FLAMEKIT_RECENT", "-1",
		  "bad FLAMEKIT_RECENT '-1': want 0 (no lifetimes) to 16777216 records" },
		{ "FLAMEKIT_MAX_SAMPLES", "4294967296",
		  "bad FLAMEKIT_MAX_SAMPLES '4294967296': want 0 (no limit) to 4294967295" },
		{ "FLAMEKIT_HTTP_ALLOW_REMOTE", "yes",
		  "bad FLAMEKIT_HTTP_ALLOW_REMOTE 'yes': want 0 or 1" },
		{ "FLAMEKIT_ALLOW", "nosuch-user-fk",
		  "bad FLAMEKIT_ALLOW 'nosuch-user-fk': no user named 'nosuch-user-fk'" },
		{ "FLAMEKIT_ALLOW", "0,,1",
		  "bad FLAMEKIT_ALLOW '0,,1': want user names or uids, separated by commas" },
		/* A secret: the message does not quote it. */
		{ "FLAMEKIT_TOKEN", "a\tb",
		  "bad FLAMEKIT_TOKEN: a control character in it (no client can send it)" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		T_EQ_STR(start_with(bad[i].name, bad[i].value), bad[i].msg, bad[i].name);
	{
		char tok[300];

		memset(tok, 'x', sizeof tok - 1);
		tok[sizeof tok - 1] = '\0';
		T_EQ_STR(start_with("FLAMEKIT_TOKEN", tok), "FLAMEKIT_TOKEN too long", "long token");
	}
	/* Good values land; a bad one later in the table leaves them as they were. */
	setenv("FLAMEKIT_CACHE_MB", "0", 1);
	setenv("FLAMEKIT_SNAPSHOT_S", "0.5", 1);
	setenv("FLAMEKIT_ALLOW", "0,root", 1);
	T_EQ_STR(start_with("FLAMEKIT_RECENT", "100"), "(started)", "good values start");
	T_EQ_INT(e->cache_mb, 0, "cache 0");
	T_OK(e->snapshot_s == 0.5, "snapshot_s 0.5");
	T_EQ_INT(e->recent, 100, "recent 100");
	T_EQ_INT(e->guard.nallow, 2, "two users allowed");
	setenv("FLAMEKIT_CACHE_MB", "7", 1);
	T_OK(strstr(start_with("FLAMEKIT_TOKEN", "a\nb"), "control character") != NULL,
	     "a bad token refuses the start");
	T_EQ_INT(e->cache_mb, 0, "and the settings stay as the last start left them");
	unsetenv("FLAMEKIT_CACHE_MB");
	unsetenv("FLAMEKIT_SNAPSHOT_S");
	unsetenv("FLAMEKIT_ALLOW");
	/* A non-loopback address wants both. */
	fk_err_init(&err, NULL);
	T_OK(fk_env_start(0, "0.0.0.0:1", &err) < 0 &&
	     strstr(err.msg, "refusing to listen on non-loopback address '0.0.0.0:1'"),
	     "0.0.0.0 without FLAMEKIT_HTTP_ALLOW_REMOTE");
	setenv("FLAMEKIT_HTTP_ALLOW_REMOTE", "1", 1);
	setenv("FLAMEKIT_TOKEN", "s3cret", 1);
	fk_err_init(&err, NULL);
	T_OK(fk_env_start(0, "0.0.0.0:1", &err) == 0 && e->guard.remote, "with both: remote");
	unsetenv("FLAMEKIT_HTTP_ALLOW_REMOTE");
	unsetenv("FLAMEKIT_TOKEN");
}

static void test_load(void)
{
	const struct fk_env *e = fk_env_get();
	char longdir[5000];

	T_EQ_STR(load_with("FLAMEKIT_DUMP_SIGNAL", "KILL"),
		 "bad FLAMEKIT_DUMP_SIGNAL 'KILL': want USR1, USR2, HUP, WINCH or URG", "SIGKILL");
	T_EQ_STR(load_with("FLAMEKIT_DUMP_SIGNAL", "SIGUSR2"), "(good)", "SIGUSR2");
	T_EQ_INT(e->dump_signal, SIGUSR2, "is USR2");
	T_EQ_STR(load_with("FLAMEKIT_AT_EXIT", "/no/such/folder/x.heap"),
		 "bad FLAMEKIT_AT_EXIT '/no/such/folder/x.heap': no folder '/no/such/folder'",
		 "at exit into no folder");
	T_EQ_STR(load_with("FLAMEKIT_AT_EXIT", "x%d"),
		 "bad FLAMEKIT_AT_EXIT 'x%d': a '%' other than %p (the process id) or %%",
		 "at exit with %d");
	T_EQ_STR(load_with("FLAMEKIT_AT_EXIT", "/tmp/h.%p"), "(good)", "at exit with %p");
	T_OK(strcmp(e->at_exit, "/tmp/h.%p") == 0 && e->at_exit_each, "each process writes");
	T_EQ_STR(load_with("FLAMEKIT_MALLCTL", "mall ctl"),
		 "bad FLAMEKIT_MALLCTL 'mall ctl': want a function's name", "a name with a space");
	T_EQ_STR(load_with("FLAMEKIT_MALLCTL", "_rjem_mallctl"), "(good)", "_rjem_mallctl");
	T_EQ_STR(e->mallctl, "_rjem_mallctl", "taken");
	T_EQ_STR(load_with("FLAMEKIT_UNWIND", "libgcc"), "(good)", "another unwinder word");
	T_OK(e->unwind == FK_UNWIND_OTHER && strcmp(e->unwind_text, "libgcc") == 0,
	     "kept for the line fk_unwind_install writes");
	memset(longdir, 'd', sizeof longdir - 1);
	longdir[sizeof longdir - 1] = '\0';
	T_OK(strstr(load_with("FLAMEKIT_DUMP_DIR", longdir), "longer than 3999 bytes") != NULL,
	     "a dump folder too long for its paths");
	T_EQ_STR(load_with("FLAMEKIT_HTTP_OWNER", "1"), "(good)", "owner");
	T_EQ_INT(e->http_owner, 1, "owner pid");
	T_EQ_STR(load_with("FLAMEKIT_HTTP_OWNER", "x"), "(good)", "an owner that is no pid");
	T_EQ_INT(e->http_owner, 0, "marks none");
}

static void test_table(void)
{
	const struct fk_setting *tab;
	size_t n, seen_start = 0, dup = 0;
	char b[128];

	tab = fk_env_table(&n);
	for (size_t i = 0; i < n; i++) {
		T_OK(strncmp(tab[i].name, "FLAMEKIT_", 9) == 0 && tab[i].type && tab[i].deflt &&
		     tab[i].help && tab[i].read, "%s: a full row", tab[i].name);
		T_OK(!seen_start || tab[i].at_start, "%s: load rows come first", tab[i].name);
		seen_start |= (size_t)tab[i].at_start;
		for (size_t j = 0; j < i; j++)
			dup += strcmp(tab[i].name, tab[j].name) == 0;
	}
	T_EQ_INT(dup, 0, "no name twice");
	T_EQ_STR(fk_env_bounds(&tab[0], b, sizeof b), "", "FLAMEKIT_HTTP has no bounds");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--print-settings") == 0)
		return print_settings();
	for (size_t i = 0, n; i < (fk_env_table(&n), n); i++)
		unsetenv(fk_env_table(&n)[i].name);
	test_defaults();
	test_start();
	test_load();
	test_table();
	return T_DONE();
}
