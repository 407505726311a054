/* SPDX-License-Identifier: MIT */
/* FLAMEKIT_AT_EXIT=PATH: the heap as it is when the program exits
 * normally, written as a raw dump with its maps (what jemalloc's
 * prof.dump writes), so that a test run's leaks can be checked afterwards
 * (heap-check(1)). Also the one writer of dump files the hook has. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"
#include "io.h"
#include "num.h"

/* Marks which process read FLAMEKIT_AT_EXIT first: exec'd descendants,
 * which inherit it, write nothing unless PATH holds %p. */
#define OWNER_ENV "FLAMEKIT_AT_EXIT_OWNER"

static pid_t at_pid;                   /* the process that read it */

int fk_dump_to_file(const char *path, const char *what)
{
	char tmp[4200];
	char *data = NULL;
	size_t len = 0, maplen = 0;
	struct fk_err err;
	const struct fk_serve_ops *ops;
	int out, rc;

	fk_err_init(&err, NULL);
	ops = fk_serve_load(&err);
	rc = ops ? ops->produce(FK_OUT_RAW, NULL, &data, &len, &maplen, &err) : -1;
	if (rc != 0) {
		fk_log("%s: %s", what, rc > 0 ? FK_HOOK_NOTHING_SAMPLED : err.msg);
		return -1;
	}
	/* Written beside and renamed, so a reader never sees half a dump. The
	 * temporary file is new and unpredictably named (mkostemp: O_EXCL, so
	 * a planted symlink is never followed); rename replaces a link planted
	 * at the final name, not its target. */
	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
	out = mkostemp(tmp, O_CLOEXEC);
	rc = out < 0 ? -1 : fk_write_all(out, data, len);
	if (out >= 0 && close(out) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1;
	if (rc < 0) {
		fk_log("%s: %s: %s", what, path, strerror(errno));
		if (out >= 0)
			unlink(tmp);
	}
	fk_hook_buf_release(data, maplen);
	return rc;
}

static void dump_at_exit(void)
{
	const char *at_path = fk_env_get()->at_exit;
	char path[sizeof fk_env_get()->at_exit + 32];
	size_t i, n = 0;
	int old;

	/* A forked child that exits holds a copy of its parent's heap. */
	if (!fk_env_get()->at_exit_each && getpid() != at_pid)
		return;
	for (i = 0; at_path[i] && n + 24 < sizeof path; i++) {
		if (at_path[i] != '%') {
			path[n++] = at_path[i];
		} else if (at_path[++i] == 'p') {
			n += (size_t)snprintf(path + n, sizeof path - n, "%ld", (long)getpid());
		} else {
			path[n++] = '%';
		}
	}
	path[n] = '\0';
	/* The dump's own allocations are no part of the heap it shows. */
	if (fk_je_thread_active(0, &old) < 0)
		old = -1;
	fk_dump_to_file(path, "FLAMEKIT_AT_EXIT");
	if (old > 0)
		fk_je_thread_active(old, NULL);
}

void fk_atexit_init(void)
{
	const struct fk_env *env = fk_env_get();
	const char *why = NULL;
	struct fk_err err;
	char buf[32];
	int active = 0, old = 0;
	struct fk_arena_save sv;
	const struct fk_serve_ops *ops;

	fk_err_init(&err, NULL);
	if (fk_env_bad("FLAMEKIT_AT_EXIT", &err) < 0)
		fk_log("%s", err.msg);
	if (!env->at_exit[0])
		return;
	if (!env->at_exit_each && env->at_exit_owner > 0 && env->at_exit_owner != getpid())
		return;
	if (!env->at_exit_each) {
		snprintf(buf, sizeof buf, "%ld", (long)getpid());
		setenv(OWNER_ENV, buf, 1);
	}
	if (fk_je_check(&why) != FK_JE_OK) {
		fk_log("FLAMEKIT_AT_EXIT: %s", why ? why : "jemalloc cannot profile here");
		return;
	}
	/* The heap at exit is what was sampled since the start: sampling
	 * starts now, at the rate jemalloc was given (lg_prof_sample). */
	if (fk_je_get_active(&active, &err) < 0 ||
	    (!active && fk_je_set_active(1, -1, &err) < 0)) {
		fk_log("FLAMEKIT_AT_EXIT: %s", err.msg);
		return;
	}
	at_pid = getpid();
	/* The dump needs the serving half: loaded now, into the hook's arena
	 * and unsampled, not from an exit handler that runs after the
	 * libraries' destructors. */
	fk_je_thread_active(0, &old);
	fk_arena_begin(&sv);
	ops = fk_serve_load(&err);
	fk_arena_end(&sv);
	fk_je_thread_active(old, NULL);
	if (!ops) {
		fk_log("FLAMEKIT_AT_EXIT: %s", err.msg);
		return;
	}
	if (atexit(dump_at_exit) != 0)
		fk_log("FLAMEKIT_AT_EXIT: atexit failed");
}
