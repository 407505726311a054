/* SPDX-License-Identifier: MIT */
/* libflamekit-hook: heap-profiling endpoints for any jemalloc program.
 * Preload it (LD_PRELOAD="libflamekit-hook.so libjemalloc.so.2" with
 * FLAMEKIT_HTTP set) or link it (-lflamekit-hook, pkg-config flamekit-hook)
 * and call this API. See libflamekit-hook(3).
 *
 * Every function is thread-safe, never prints, never exits, and returns 0 on
 * success or -1 with a one-line message in errbuf (errbuf may be NULL). */
#ifndef FLAMEKIT_HOOK_H
#define FLAMEKIT_HOOK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FK_HOOK_API __attribute__((visibility("default")))

/* What the hook knows about jemalloc's profiling, as read from jemalloc. */
struct fk_hook_status {
	int jemalloc_found;        /* a mallctl was found */
	int prof_compiled;         /* config.prof: built with --enable-prof */
	int prof_started;          /* opt.prof: started with prof:true */
	int active;                /* prof.active: sampling now */
	int lg_sample;             /* prof.lg_sample, -1 when unknown */
	double active_seconds;     /* since the hook activated sampling; -1 if unknown */
	unsigned long dumps_served;/* dumps written by this hook */
	int serving;               /* the HTTP server is running */
};

/* Starts the HTTP server on addr ("127.0.0.1:6060", "[::1]:6060",
 * "unix:/path"; a non-loopback address needs FLAMEKIT_HTTP_ALLOW_REMOTE=1
 * and FLAMEKIT_TOKEN). Fails when a server already runs in this process. */
FK_HOOK_API int fk_hook_start(const char *addr, char *errbuf, size_t errsize);

/* Stops the server started by fk_hook_start and waits for its thread.
 * Does nothing when none runs. */
FK_HOOK_API void fk_hook_stop(void);

/* Turns sampling on or off (jemalloc's prof.active). lg_sample >= 0 also
 * resets the profile with that sampling rate (prof.reset); -1 keeps it. */
FK_HOOK_API int fk_hook_set_active(int active, int lg_sample,
				   char *errbuf, size_t errsize);

/* jemalloc's mallctl, as a program hands it to fk_hook_set_mallctl. */
typedef int (*fk_hook_mallctl_fn)(const char *name, void *oldp, size_t *oldlenp,
				  void *newp, size_t newlen);

/* Makes fn the mallctl of the jemalloc the hook drives (for a program that
 * links jemalloc statically and the hook through this API: a Rust program
 * passes _rjem_mallctl). Call it before fk_hook_start; a later call
 * switches every later request to fn. Fails when fn is NULL or does not
 * answer mallctl("version"). */
FK_HOOK_API int fk_hook_set_mallctl(fk_hook_mallctl_fn fn, char *errbuf, size_t errsize);

/* Fills *st. Returns -1 only when st is NULL. */
FK_HOOK_API int fk_hook_status(struct fk_hook_status *st);

/* Dumps the heap now and writes it to fd in format "raw", "symbolized",
 * "pprof", "folded" or "flame" (NULL = "pprof"). Works while sampling is
 * off (what was sampled stays in jemalloc); fails when nothing was sampled
 * since start or the last reset. The calling thread is not sampled while
 * this runs. */
FK_HOOK_API int fk_hook_dump(int fd, const char *format,
			     char *errbuf, size_t errsize);

#ifdef __cplusplus
}
#endif

#endif
