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

/* Who sent a request that the program's own HTTP server hands to
 * fk_hook_handle (the hook's rule for "who may ask", libflamekit-hook(3),
 * MOUNTING THE ROUTES). With FLAMEKIT_TOKEN set, the bearer token admits
 * whoever holds it, whatever kind says. */
enum fk_hook_peer_kind {
	FK_HOOK_PEER_UNKNOWN = 0,  /* nothing known: refused, as on the hook's
				      socket, unless the token is sent */
	FK_HOOK_PEER_TCP = 1,      /* remote and local: the connection's two
				      ends; a loopback peer's user is found as
				      on the hook's socket */
	FK_HOOK_PEER_UID = 2,      /* uid: the user the program found itself
				      (SO_PEERCRED on a unix socket) */
	FK_HOOK_PEER_VOUCHED = 3   /* the program admitted its client itself:
				      no user is checked (the token, Host and
				      cross-site rules still are) */
};
struct fk_hook_peer {
	enum fk_hook_peer_kind kind;
	const char *remote;        /* FK_HOOK_PEER_TCP: "127.0.0.1:41234", "[::1]:41234" */
	const char *local;         /* FK_HOOK_PEER_TCP: the program's end */
	unsigned long uid;         /* FK_HOOK_PEER_UID */
};

/* An answer of fk_hook_handle. content_type and disposition are static
 * strings; body (len bytes, not NUL-terminated) is the hook's until
 * fk_hook_response_release. */
struct fk_hook_response {
	int status;                /* an HTTP status: 200, 400, 403, 409... */
	const char *content_type;
	const char *disposition;   /* a Content-Disposition to send, or NULL */
	char *body;
	size_t len;
	size_t maplen_;            /* the hook's: how body is released */
};

/* Answers one request as the hook's own server answers it on its socket:
 * the same admission (method, URL and parameter limits, who may ask from
 * peer (NULL: FK_HOOK_PEER_UNKNOWN), the token, the Host header, the
 * cross-site rule), then the same routes (/internal/heap...,
 * /debug/pprof/...). method is "GET", "HEAD" or "POST"; target the path
 * and query as sent ("/internal/heap?format=flame"); headers nheaders
 * name/value pairs (headers[2i], headers[2i+1]). No server needs to run,
 * nor libmicrohttpd to be used; the work is done on the hook's own
 * thread (started with no socket on the first call), which is never
 * sampled. A delta (?seconds=N) holds the calling thread N seconds.
 * Answers for another process (?pid=) are the hook's own server's (501
 * here). Returns 0 with *out filled (any status; the headers the hook's
 * server adds are X-Content-Type-Options: nosniff and Cache-Control:
 * no-store, and the disposition when set), or -1 when an argument is NULL
 * (errbuf says which). Release *out with fk_hook_response_release. */
FK_HOOK_API int fk_hook_handle(const char *method, const char *target,
			       const char *const *headers, size_t nheaders,
			       const struct fk_hook_peer *peer, struct fk_hook_response *out,
			       char *errbuf, size_t errsize);

/* Frees r's body (r may be NULL, or released already). */
FK_HOOK_API void fk_hook_response_release(struct fk_hook_response *r);

#ifdef __cplusplus
}
#endif

#endif
