/* SPDX-License-Identifier: MIT */
/* Debug files from debuginfod servers (the debuginfod web API: GET
 * /buildid/HEX/debuginfo), through elfutils' libdebuginfod, which keeps
 * the files it fetched (and the misses) in its cache. The library is
 * dlopen'd only when DEBUGINFOD_URLS names a server, so that a run without
 * it maps nothing new and costs one getenv; it is never unloaded (libcurl
 * under it cannot be ended while another thread may be in it). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "limits.h"
#include "num.h"
#include "symbolize_int.h"

/* The entry points used, looked up once per process. */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	const char *(*get_url)(debuginfod_client *);
	char why[200];                 /* why it could not be loaded, or "" */
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p && !lib.why[0])
		snprintf(lib.why, sizeof lib.why, "%s has no %s", DEBUGINFOD_SONAME, name);
	return p;
}

static void load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(lib.why, sizeof lib.why, "cannot load %.150s", e ? e : DEBUGINFOD_SONAME);
		return;
	}
	*(void **)&lib.begin = sym(h, "debuginfod_begin");
	*(void **)&lib.end = sym(h, "debuginfod_end");
	*(void **)&lib.find_debuginfo = sym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.set_progressfn = sym(h, "debuginfod_set_progressfn");
	*(void **)&lib.set_user_data = sym(h, "debuginfod_set_user_data");
	*(void **)&lib.get_user_data = sym(h, "debuginfod_get_user_data");
	*(void **)&lib.get_url = sym(h, "debuginfod_get_url");
}

struct fk_dinfod {
	char *urls;                    /* DEBUGINFOD_URLS as read */
	long timeout;                  /* seconds */
	pthread_mutex_t lock;
	int failed;                    /* under lock: no more queries this run */
	char why[200];                 /* under lock: the first failure */
	size_t skipped;                /* under lock: queries not made after it */
};

/* The timeout: DEBUGINFOD_TIMEOUT (what libdebuginfod reads too) when it
 * is a whole number of seconds from 1 to FK_MAX_DEBUGINFOD_TIMEOUT, else
 * FK_DEBUGINFOD_TIMEOUT. */
static long timeout_of_env(void)
{
	const char *s = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	uint64_t v;
	if (s && fk_parse_u64(s, strlen(s), &v) == 0 && v >= 1 &&
	    v <= FK_MAX_DEBUGINFOD_TIMEOUT)
		return (long)v;
	return FK_DEBUGINFOD_TIMEOUT;
}

struct fk_dinfod *fk_dinfod_new(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	if (!urls || !urls[strspn(urls, " ")])
		return NULL;
	struct fk_dinfod *d = calloc(1, sizeof *d);
	if (!d || !(d->urls = strdup(urls))) {
		free(d);
		return NULL;
	}
	d->timeout = timeout_of_env();
	pthread_mutex_init(&d->lock, NULL);
	pthread_once(&lib_once, load);
	if (lib.why[0]) {
		d->failed = 1;
		snprintf(d->why, sizeof d->why, "%s", lib.why);
	}
	return d;
}

/* One query's clock, read by the progress callback libdebuginfod calls
 * about once a second while it waits (and while it cleans its cache). */
struct query {
	long timeout;
	struct timespec mark;          /* start, or when bytes last came */
	long bytes;
	int committed;                 /* a server has started sending the file */
	int timed_out;
};

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Stops the query when no server has begun to send the file within the
 * timeout (connecting, asking and waiting included: libdebuginfod's own
 * DEBUGINFOD_TIMEOUT counts only a slow transfer, curl's connect timeout
 * is minutes), or when the file stopped coming for as long. a is the bytes
 * received once a server is sending (libdebuginfod's url is set then),
 * a loop count before. */
static int progress(debuginfod_client *c, long a, long b)
{
	(void)b;
	struct query *q = lib.get_user_data(c);
	if (!q)
		return 0;
	if (lib.get_url(c) && (!q->committed || a != q->bytes)) {
		q->committed = 1;
		q->bytes = a;
		clock_gettime(CLOCK_MONOTONIC, &q->mark);
	}
	if (since(&q->mark) < (double)q->timeout)
		return 0;
	q->timed_out = 1;
	return 1;
}

/* Records the first failure (the caller holds no lock). */
static void fail(struct fk_dinfod *d, const char *why)
{
	pthread_mutex_lock(&d->lock);
	if (!d->failed) {
		d->failed = 1;
		snprintf(d->why, sizeof d->why, "%s", why);
	}
	pthread_mutex_unlock(&d->lock);
}

char *fk_dinfod_find(struct fk_dinfod *d, const unsigned char *bid, size_t len)
{
	if (!d || len == 0 || len > 64)
		return NULL;
	pthread_mutex_lock(&d->lock);
	int failed = d->failed;
	d->skipped += failed ? 1 : 0;
	pthread_mutex_unlock(&d->lock);
	if (failed)
		return NULL;
	/* A client per query: one is not to be shared between threads, and
	 * making one costs a curl multi handle. */
	debuginfod_client *c = lib.begin();
	if (!c) {
		fail(d, "cannot start a libdebuginfod client");
		return NULL;
	}
	struct query q = { .timeout = d->timeout };
	clock_gettime(CLOCK_MONOTONIC, &q.mark);
	lib.set_user_data(c, &q);
	lib.set_progressfn(c, progress);
	char *path = NULL;
	int fd = lib.find_debuginfo(c, bid, (int)len, &path);
	lib.end(c);
	if (fd >= 0) {
		/* Opened again, and checked, by the caller. */
		close(fd);
		return path;
	}
	free(path);
	char why[128];
	if (q.timed_out)
		snprintf(why, sizeof why, "no answer within %ld s", d->timeout);
	else
		snprintf(why, sizeof why, "%s", strerror(-fd));
	if (why[0] >= 'A' && why[0] <= 'Z')
		why[0] = (char)(why[0] - 'A' + 'a');
	/* Not found on any server is an answer, and so is a file larger
	 * than DEBUGINFOD_MAXSIZE (a 406): neither is the servers' failure. */
	if (q.timed_out || (fd != -ENOENT && fd != -EFBIG))
		fail(d, why);
	return NULL;
}

int fk_dinfod_failure(const struct fk_dinfod *d, const char **urls, char *why, size_t n)
{
	if (!d || !d->failed)
		return 0;
	*urls = d->urls;
	if (d->skipped)
		snprintf(why, n, "%s (no debug file asked for %zu more module%s)", d->why,
			 d->skipped, d->skipped == 1 ? "" : "s");
	else
		snprintf(why, n, "%s", d->why);
	return 1;
}

void fk_dinfod_free(struct fk_dinfod *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	free(d->urls);
	free(d);
}
