/* SPDX-License-Identifier: MIT */
/* Loading the serving half (libflamekit-hook-serve.so.0, from the folder
 * this library was loaded from) on first use: see hook_private.h, "the
 * serving half". The load runs once; its outcome, a table or a failure,
 * is kept. It is serialised with fork, so that a child never inherits the
 * dynamic loader's lock taken by a load half done. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"

#define SERVE_SO "libflamekit-hook-serve.so.0"
#define SERVE_SYM "fk_serve_ops_0"

static struct {
	pthread_mutex_t mu;
	_Atomic(const struct fk_serve_ops *) ops;
	int tried;                     /* under mu */
	struct fk_err failure;         /* under mu, once tried */
	/* SERVE_SO's path beside this library, made absolute before the
	 * host can change its folder (redis chdirs to its --dir): LD_PRELOAD
	 * may name the library by a relative path. "" when it cannot be told. */
	char path[4096];
} sv = { .mu = PTHREAD_MUTEX_INITIALIZER };

#ifdef FK_SERVE_STATIC
/* The static archive (libflamekit-hook.a, capture/build.mk) holds both
 * halves in one program: the table is reached directly, nothing is
 * loaded. */
extern const struct fk_serve_ops fk_serve_ops_0;

static void load(void)
{
	atomic_store(&sv.ops, &fk_serve_ops_0);
}
#else

__attribute__((constructor(101))) static void find_serve_path(void)
{
	char lib[4096];
	Dl_info di;
	const char *slash;

	if (!dladdr((void *)fk_serve_load, &di) || !di.dli_fname || !di.dli_fname[0] ||
	    !realpath(di.dli_fname, lib))
		return;
	slash = strrchr(lib, '/');
	if (slash && (size_t)(slash - lib) + 1 + sizeof SERVE_SO <= sizeof sv.path)
		snprintf(sv.path, sizeof sv.path, "%.*s/%s", (int)(slash - lib), lib, SERVE_SO);
}

static void load(void)
{
	const char *path = sv.path;
	const struct fk_serve_ops *t;
	void *h;

	if (!path[0]) {
		fk_err_set(&sv.failure, FK_EIO, 0, "cannot tell where libflamekit-hook.so was loaded from");
		return;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fk_err_set(&sv.failure, FK_EIO, 0, "cannot load the hook's serving half: %s", dlerror());
		return;
	}
	t = dlsym(h, SERVE_SYM);
	if (!t || !t->version || strcmp(t->version, FK_VERSION) != 0) {
		fk_err_set(&sv.failure, FK_EUNSUPP, 0, "%s is %s%s, this libflamekit-hook.so %s: "
			   "install both from one build", path, t && t->version ? "version " : "",
			   t && t->version ? t->version : "no serving half", FK_VERSION);
		dlclose(h);
		return;
	}
	atomic_store(&sv.ops, t);
}
#endif

const struct fk_serve_ops *fk_serve_load(struct fk_err *err)
{
	const struct fk_serve_ops *t = atomic_load(&sv.ops);

	if (t)
		return t;
	pthread_mutex_lock(&sv.mu);
	if (!sv.tried) {
		sv.tried = 1;
		fk_err_init(&sv.failure, NULL);
		load();
	}
	t = atomic_load(&sv.ops);
	if (!t && err)
		*err = sv.failure;
	pthread_mutex_unlock(&sv.mu);
	return t;
}

const struct fk_serve_ops *fk_serve_ops(void)
{
	return atomic_load(&sv.ops);
}

void fk_serve_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&sv.mu);
	else if (phase == 1)
		pthread_mutex_unlock(&sv.mu);
	else
		pthread_mutex_init(&sv.mu, NULL);
}
