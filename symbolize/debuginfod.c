/* SPDX-License-Identifier: MIT */
/* Debug files from debuginfod servers (the debuginfod web API: GET
 * SERVER/buildid/HEX/debuginfo, a 404 when the server has none), a
 * client of our own on libcurl, over the cache libdebuginfod keeps
 * (dinfod_cache.c). Our write callback counts what is written, after a
 * gzip'd body inflates, and stops the transfer at the size bound; curl
 * ends it at the query's deadline. libcurl is dlopen'd the first time a
 * server is asked, so that a run without DEBUGINFOD_URLS maps nothing
 * new and costs one getenv; it is never unloaded (it cannot be ended
 * while another thread may be in it). */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "limits.h"
#include "num.h"
#include "symbolize_int.h"

/* The entry points used, looked up once per process. */
static struct {
	CURL *(*init)(void);
	CURLcode (*setopt)(CURL *, CURLoption, ...);
	CURLcode (*perform)(CURL *);
	CURLcode (*getinfo)(CURL *, CURLINFO, ...);
	void (*cleanup)(CURL *);
	const char *(*strerror)(CURLcode);
	char why[200];                 /* why it could not be loaded, or "" */
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p && !lib.why[0])
		snprintf(lib.why, sizeof lib.why, "libcurl has no %s", name);
	return p;
}

/* Debian's libcurl4 (OpenSSL), else its GnuTLS build: the same API. */
static void load(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(lib.why, sizeof lib.why, "cannot load %.150s", e ? e : "libcurl.so.4");
		return;
	}
	CURLcode (*global_init)(long) = (CURLcode (*)(long))sym(h, "curl_global_init");
	*(void **)&lib.init = sym(h, "curl_easy_init");
	*(void **)&lib.setopt = sym(h, "curl_easy_setopt");
	*(void **)&lib.perform = sym(h, "curl_easy_perform");
	*(void **)&lib.getinfo = sym(h, "curl_easy_getinfo");
	*(void **)&lib.cleanup = sym(h, "curl_easy_cleanup");
	*(void **)&lib.strerror = sym(h, "curl_easy_strerror");
	/* Once, before any handle: not thread-safe in libcurl before 7.84. */
	if (!lib.why[0] && global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		snprintf(lib.why, sizeof lib.why, "libcurl: curl_global_init failed");
}

/* A server that failed, to be reported once. */
struct server {
	char url[256];                 /* as DEBUGINFOD_URLS spells it */
	char why[256];
};

struct fk_dinfod {
	char *urls;                    /* DEBUGINFOD_URLS as read */
	char *list;                    /* its copy, cut into the servers */
	const char *server[FK_MAX_DEBUGINFOD_SERVERS];
	size_t nservers;
	long timeout;                  /* seconds a query may take */
	uint64_t maxsize;              /* bytes a debug file may have */
	pthread_mutex_t lock;          /* guards what follows */
	int stop;                      /* no more queries this run */
	int opened;                    /* the cache was opened, or tried */
	struct fk_dcache cache;        /* read-only once opened */
	int down[FK_MAX_DEBUGINFOD_SERVERS]; /* failed: asked no more */
	size_t ndown;
	struct server failed[FK_MAX_DEBUGINFOD_SERVERS];
	size_t nfailed;
	char why[256];                 /* a failure of no one server, or "" */
	size_t skipped;                /* queries not made after stop */
};

/* Environment variable name (which libdebuginfod reads too) when it is a
 * whole number from 1 to max, else dflt. */
static uint64_t env_number(const char *name, uint64_t max, uint64_t dflt)
{
	const char *s = getenv(name);
	uint64_t v;
	if (s && fk_parse_u64(s, strlen(s), &v) == 0 && v >= 1 && v <= max)
		return v;
	return dflt;
}

/* The same server: equal but for one '/' at the end (libdebuginfod adds
 * "buildid" after a '/', "/buildid" else). */
static int same_server(const char *a, const char *b)
{
	size_t m = strlen(a), n = strlen(b);
	m -= m > 1 && a[m - 1] == '/';
	n -= n > 1 && b[n - 1] == '/';
	return m == n && memcmp(a, b, n) == 0;
}

/* Cuts d->list into its servers, each once (a URL too long to ask is
 * left out). */
static void cut_servers(struct fk_dinfod *d)
{
	char *save = NULL;
	for (char *s = strtok_r(d->list, " ", &save); s && d->nservers < FK_MAX_DEBUGINFOD_SERVERS;
	     s = strtok_r(NULL, " ", &save)) {
		int dup = strlen(s) > FK_MAX_PATH / 2;
		for (size_t i = 0; i < d->nservers && !dup; i++)
			dup = same_server(d->server[i], s);
		if (!dup)
			d->server[d->nservers++] = s;
	}
}

struct fk_dinfod *fk_dinfod_new(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[strspn(urls, " ")])
		return NULL;
	struct fk_dinfod *d = calloc(1, sizeof *d);
	if (!d || !(d->urls = strdup(urls)) || !(d->list = strdup(urls))) {
		if (d)
			free(d->urls);
		free(d);
		return NULL;
	}
	cut_servers(d);
	d->timeout = (long)env_number("DEBUGINFOD_TIMEOUT", FK_MAX_DEBUGINFOD_TIMEOUT,
				      FK_DEBUGINFOD_TIMEOUT);
	d->maxsize = env_number("DEBUGINFOD_MAXSIZE", INT64_MAX, FK_MAX_DEBUGINFOD_FILE);
	d->cache.dir = -1;
	pthread_mutex_init(&d->lock, NULL);
	return d;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* Printable ASCII only: curl's messages quote what servers send. */
static void printable(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '?';
}

/* Server i failed (why): noted once, and asked no more this run; when
 * every server has, d stops. */
static void server_failed(struct fk_dinfod *d, size_t i, const char *why)
{
	pthread_mutex_lock(&d->lock);
	if (!d->down[i]) {
		d->down[i] = 1;
		d->ndown++;
		struct server *s = &d->failed[d->nfailed++];
		snprintf(s->url, sizeof s->url, "%s", d->server[i]);
		snprintf(s->why, sizeof s->why, "%s", why);
		printable(s->why);
	}
	if (d->ndown == d->nservers)
		d->stop = 1;
	pthread_mutex_unlock(&d->lock);
}

/* A failure of no one server (the cache, libcurl, memory): d stops. */
static void run_failed(struct fk_dinfod *d, const char *why)
{
	pthread_mutex_lock(&d->lock);
	if (!d->why[0]) {
		snprintf(d->why, sizeof d->why, "%s", why);
		printable(d->why);
	}
	d->stop = 1;
	pthread_mutex_unlock(&d->lock);
}

static long ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* One transfer into the temporary file, as curl hands it over (at most
 * CURL_MAX_WRITE_SIZE bytes a call, inflated). */
struct xfer {
	CURL *h;
	int fd;
	uint64_t max, written;
	const struct timespec *start;  /* the query's */
	long ms;                       /* its time in all */
	int over;                      /* OVER_* */
	int err;                       /* errno of a failed write, or 0 */
};
enum { OVER_NONE, OVER_ANNOUNCED, OVER_WRITTEN, OVER_LATE };

static size_t on_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;

	/* A length announced past the bound is an answer, as libdebuginfod
	 * takes one: nothing more is received. (A gzip'd body's length is
	 * of the bytes sent, which it inflates from.) */
	if (x->written == 0) {
		curl_off_t cl = -1;
		if (lib.getinfo(x->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
		    cl > 0 && (uint64_t)cl > x->max) {
			x->over = OVER_ANNOUNCED;
			return 0;
		}
	}
	/* Never a byte past the bound on disk. */
	if (n > x->max - x->written) {
		x->over = OVER_WRITTEN;
		return 0;
	}
	/* curl looks at the time between reads, and one read of a gzip'd
	 * body may be a thousand writes, each held up by the page cache. */
	if (ms_since(x->start) >= x->ms) {
		x->over = OVER_LATE;
		return 0;
	}
	for (size_t off = 0; off < n; ) {
		ssize_t k = write(x->fd, p + off, n - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			x->err = k < 0 ? errno : EIO;
			return 0;
		}
		off += (size_t)k;
	}
	x->written += n;
	return n;
}

/* What asking one server gave. */
enum { A_FILE, A_NONE, A_LARGE_ANSWER, A_FAILED, A_LOCAL };

/* Server url's sending of hex's debug file into fd, by the end of the
 * query begun at start: A_FILE (written to fd), A_NONE (a 404), A_LARGE_ANSWER
 * (over the bound, said before sending), A_FAILED (the server's failure,
 * why), A_LOCAL (ours, why). */
static int ask(const struct fk_dinfod *d, const char *server, const char *hex,
	       const struct timespec *start, int fd, char *why, size_t n)
{
	char url[FK_MAX_PATH], err[CURL_ERROR_SIZE] = "", maxsize[64];
	size_t len = strlen(server);
	int a = A_FAILED;

	snprintf(url, sizeof url, "%s%sbuildid/%s/debuginfo", server,
		 len > 1 && server[len - 1] == '/' ? "" : "/", hex);
	/* Sent as libdebuginfod sends it: a server may refuse a larger file
	 * with a 406. */
	snprintf(maxsize, sizeof maxsize, "X-DEBUGINFOD-MAXSIZE: %" PRIu64, d->maxsize);
	struct curl_slist header = { maxsize, NULL };
	CURL *h = lib.init();
	if (!h) {
		snprintf(why, n, "libcurl: cannot make a handle");
		return A_LOCAL;
	}
	struct xfer x = { h, fd, d->maxsize, 0, start, d->timeout * 1000, OVER_NONE, 0 };
	/* 0 would be no timeout at all to curl. */
	long ms = x.ms - ms_since(start);
	ms = ms < 1 ? 1 : ms;
	int bad = 0;
	/* http and https only, redirects too (curl would follow one to ftp). */
	bad |= lib.setopt(h, CURLOPT_URL, url) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_FOLLOWLOCATION, 1L) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_MAXREDIRS, (long)FK_MAX_DEBUGINFOD_REDIRECTS) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_PATH_AS_IS, 1L) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_FAILONERROR, 1L) != CURLE_OK;
	/* No signals: the hook's threads, and the program's handlers. */
	bad |= lib.setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_TIMEOUT_MS, ms) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_HTTPHEADER, &header) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_USERAGENT, "flamekit") != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_ERRORBUFFER, err) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK;
	bad |= lib.setopt(h, CURLOPT_WRITEDATA, &x) != CURLE_OK;
	if (bad) {
		lib.cleanup(h);
		snprintf(why, n, "libcurl refused an option (older than 7.85?)");
		return A_LOCAL;
	}
	CURLcode rc = lib.perform(h);
	long code = 0;
	lib.getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	lib.cleanup(h);

	if (rc == CURLE_OK && code == 200)
		return A_FILE;
	if (rc == CURLE_OK) {
		snprintf(why, n, "http response %ld", code);
	} else if (rc == CURLE_WRITE_ERROR && x.over == OVER_ANNOUNCED) {
		a = A_LARGE_ANSWER;
	} else if (rc == CURLE_WRITE_ERROR && x.over == OVER_WRITTEN) {
		snprintf(why, n, "sent more than %" PRIu64 " bytes", d->maxsize);
	} else if (rc == CURLE_WRITE_ERROR && x.err) {
		snprintf(why, n, "cache: %s", strerror(x.err));
		a = A_LOCAL;
	} else if (rc == CURLE_OPERATION_TIMEDOUT ||
		   (rc == CURLE_WRITE_ERROR && x.over == OVER_LATE)) {
		snprintf(why, n, "no answer within %ld s", d->timeout);
	} else if (rc == CURLE_HTTP_RETURNED_ERROR && (code == 404 || code == 406)) {
		/* Not there; or larger than DEBUGINFOD_MAXSIZE, the server says. */
		a = code == 404 ? A_NONE : A_LARGE_ANSWER;
	} else {
		const char *s = lib.strerror(rc);
		snprintf(why, n, "%s", rc == CURLE_HTTP_RETURNED_ERROR && err[0] ? err : s ? s : "?");
	}
	lower(why);
	return a;
}

/* Passes the file open at fd (hex's, in the cache as e's tmp when tmp,
 * else its debuginfo) to check, and returns check's result, after
 * making sure check opened that very file. */
static int take(struct fk_dentry *e, int fd, int tmp, fk_dinfod_check_fn *check, void *ctx)
{
	char path[FK_MAX_PATH], name[FK_MAX_PATH];
	struct stat a, b;

	if (fk_dcache_path(e, tmp ? e->tmp : "debuginfo", path, sizeof path) != 0 ||
	    fk_dcache_path(e, "debuginfo", name, sizeof name) != 0)
		return -1;
	int got = check(ctx, path, name);
	if (got >= 0 && (fstat(got, &a) != 0 || fstat(fd, &b) != 0 ||
			 a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		/* A name on the way was changed under us: not what we wrote. */
		close(got);
		got = -1;
	}
	return got;
}

/* Asks d's servers in turn for hex's debug file into e, from start on. */
static int from_servers(struct fk_dinfod *d, struct fk_dentry *e, const char *hex,
			const struct timespec *start, fk_dinfod_check_fn *check, void *ctx)
{
	char why[256];
	size_t asked = 0, none = 0;
	int got = -1, done = 0;

	pthread_once(&lib_once, load);
	if (lib.why[0]) {
		run_failed(d, lib.why);
		return -1;
	}
	for (size_t i = 0; i < d->nservers && !done; i++) {
		pthread_mutex_lock(&d->lock);
		int skip = d->down[i] || d->stop;
		pthread_mutex_unlock(&d->lock);
		long ms = d->timeout * 1000 - ms_since(start);
		if (skip || ms <= 0)
			continue;
		why[0] = '\0';
		if (e->fd < 0 ? fk_dcache_create(e, why, sizeof why) != 0
			      : fk_dcache_restart(e) != 0) {
			run_failed(d, why[0] ? why : "cache: cannot empty a temporary file");
			return -1;
		}
		asked++;
		switch (ask(d, d->server[i], hex, start, e->fd, why, sizeof why)) {
		case A_FILE:
			got = take(e, e->fd, 1, check, ctx);
			if (got == FK_DINFOD_OTHER) {
				snprintf(why, sizeof why, "sent a file that is not the debug file "
					 "of build-id %s (removed from the cache)", hex);
				server_failed(d, i, why);
				got = -1;
				break;
			}
			/* The file asked for, usable or not: kept. */
			if (fk_dcache_commit(e, why, sizeof why) != 0) {
				if (got >= 0)
					close(got);
				got = -1;
				run_failed(d, why);
			}
			done = 1;
			break;
		case A_NONE:
			none++;
			break;
		case A_LARGE_ANSWER:
			done = 1;
			break;
		case A_FAILED:
			server_failed(d, i, why);
			break;
		default:
			run_failed(d, why);
			done = 1;
		}
	}
	/* Every server there is said it has none: noted, as libdebuginfod
	 * notes it, for the next run. */
	if (!done && none == asked && asked == d->nservers)
		fk_dcache_miss(e);
	return got;
}

int fk_dinfod_find(struct fk_dinfod *d, const unsigned char *bid, size_t len,
		   fk_dinfod_check_fn *check, void *ctx)
{
	char hex[2 * 64 + 1], why[256];
	struct timespec start;
	struct fk_dentry e;
	int fd, got = -1;

	if (!d || len == 0 || len > 64)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	pthread_mutex_lock(&d->lock);
	if (!d->stop && !d->opened) {
		d->opened = 1;
		if (fk_dcache_open(&d->cache, why, sizeof why) != 0) {
			snprintf(d->why, sizeof d->why, "%s", why);
			printable(d->why);
			d->stop = 1;
		}
	}
	int stop = d->stop;
	d->skipped += stop ? 1 : 0;
	pthread_mutex_unlock(&d->lock);
	if (stop)
		return -1;

	int st = fk_dcache_look(&d->cache, hex, &e, &fd, why, sizeof why);
	if (st < 0)
		run_failed(d, why);
	if (st == FK_DCACHE_HIT) {
		got = take(&e, fd, 0, check, ctx);
		close(fd);
		/* A cached file not the one asked for is asked for again. */
		if (got == FK_DINFOD_OTHER) {
			fk_dcache_forget(&e);
			st = FK_DCACHE_NONE;
		}
	}
	if (st == FK_DCACHE_NONE)
		got = from_servers(d, &e, hex, &start, check, ctx);
	fk_dcache_end(&e);
	return got >= 0 ? got : -1;
}

size_t fk_dinfod_failures(const struct fk_dinfod *d)
{
	return d ? d->nfailed + (d->why[0] ? 1 : 0) : 0;
}

void fk_dinfod_failure(const struct fk_dinfod *d, size_t i, const char **url,
		       char *why, size_t n)
{
	const char *what = i < d->nfailed ? d->failed[i].why : d->why;
	*url = i < d->nfailed ? d->failed[i].url : d->urls;
	if (d->skipped && i + 1 == fk_dinfod_failures(d))
		snprintf(why, n, "%s (no debug file asked for %zu more module%s)", what,
			 d->skipped, d->skipped == 1 ? "" : "s");
	else
		snprintf(why, n, "%s", what);
}

void fk_dinfod_free(struct fk_dinfod *d)
{
	if (!d)
		return;
	fk_dcache_close(&d->cache);
	pthread_mutex_destroy(&d->lock);
	free(d->list);
	free(d->urls);
	free(d);
}
