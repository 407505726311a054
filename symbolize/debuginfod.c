/* SPDX-License-Identifier: MIT */
/* Debug files from debuginfod servers (the debuginfod web API: GET
 * /buildid/HEX/debuginfo), through elfutils' libdebuginfod, which keeps
 * the files it fetched (and the misses) in its cache. The library is
 * dlopen'd only when DEBUGINFOD_URLS names a server, so that a run without
 * it maps nothing new and costs one getenv; it is never unloaded (libcurl
 * under it cannot be ended while another thread may be in it). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
	void (*set_verbose_fd)(debuginfod_client *, int);
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
	*(void **)&lib.set_verbose_fd = sym(h, "debuginfod_set_verbose_fd");
}

/* A server that failed, to be reported once. */
struct server {
	char url[256];                 /* as libdebuginfod names it */
	char why[160];
};

struct fk_dinfod {
	char *urls;                    /* DEBUGINFOD_URLS as read */
	long timeout;                  /* seconds a query may take */
	uint64_t maxsize;              /* bytes a debug file may have */
	int transcript;                /* libdebuginfod's transcript is ours to read */
	pthread_mutex_t lock;          /* guards what follows */
	int stop;                      /* no more queries this run */
	struct server failed[FK_MAX_DEBUGINFOD_SERVERS];
	size_t nfailed;
	char why[200];                 /* a failure of no one server, or "" */
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
	d->timeout = (long)env_number(DEBUGINFOD_TIMEOUT_ENV_VAR, FK_MAX_DEBUGINFOD_TIMEOUT,
				      FK_DEBUGINFOD_TIMEOUT);
	d->maxsize = env_number(DEBUGINFOD_MAXSIZE_ENV_VAR, INT64_MAX, FK_MAX_DEBUGINFOD_FILE);
	/* With DEBUGINFOD_VERBOSE the user reads the transcript on stderr. */
	d->transcript = !getenv(DEBUGINFOD_VERBOSE_ENV_VAR);
	pthread_mutex_init(&d->lock, NULL);
	pthread_once(&lib_once, load);
	if (lib.why[0]) {
		d->stop = 1;
		snprintf(d->why, sizeof d->why, "%s", lib.why);
	}
	return d;
}

/* Why a query was stopped, or was not what was asked. */
enum { Q_ON, Q_LATE, Q_LARGE, Q_ANNOUNCED, Q_OTHER };

/* One query, read by the progress callback libdebuginfod calls about
 * once a second while it waits, after each batch of the file curl reads
 * (and while it cleans its cache). */
struct query {
	const struct fk_dinfod *d;
	char hex[2 * 64 + 1];          /* the build-id asked for */
	struct timespec start;
	int sending;                   /* a server has begun to send the file */
	int tmp;                       /* libdebuginfod's temporary file, or -1 */
	int stop;                      /* Q_* */
};

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* libdebuginfod's temporary file for build-id hex (mkstemp's
 * CACHE/HEX/debuginfo.XXXXXX) among this thread's descriptors (the hook's
 * threads have a table of their own), or -1. Its size is what was
 * written; curl counts what it received, before inflating. */
static int find_tmp(const char *hex)
{
	char tail[2 * 64 + 16], name[64], link[FK_MAX_PATH];
	int n = snprintf(tail, sizeof tail, "/%s/debuginfo.", hex), found = -1;
	DIR *dir = opendir("/proc/thread-self/fd");
	struct dirent *e;
	uint64_t fd;

	while (dir && found < 0 && (e = readdir(dir)) != NULL) {
		if (fk_parse_u64(e->d_name, strlen(e->d_name), &fd) != 0 || fd > INT32_MAX)
			continue;
		snprintf(name, sizeof name, "/proc/thread-self/fd/%d", (int)fd);
		ssize_t k = readlink(name, link, sizeof link);
		if (k >= n + 6 && k < (ssize_t)sizeof link &&
		    memcmp(link + k - n - 6, tail, (size_t)n) == 0)
			found = (int)fd;
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Stops the query at the deadline (connecting, asking, libdebuginfod's
 * retries and the transfer: its own DEBUGINFOD_TIMEOUT only asks for a
 * rate, curl's connect timeout is minutes), or when the file passes the
 * size bound, written or announced. Once a server is sending
 * (libdebuginfod's url is set then), a is the bytes received and b the
 * length announced (-1 or 0 when none); before, a counts calls. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct query *q = lib.get_user_data(c);
	struct stat st;

	if (!q)
		return 0;
	if (lib.get_url(c)) {
		if (!q->sending)
			q->tmp = find_tmp(q->hex);
		q->sending = 1;
		if (b > 0 && (uint64_t)b > q->d->maxsize)
			q->stop = Q_ANNOUNCED;
		else if ((a > 0 && (uint64_t)a > q->d->maxsize) ||
			 (q->tmp >= 0 && fstat(q->tmp, &st) == 0 &&
			  (uint64_t)st.st_size > q->d->maxsize))
			q->stop = Q_LARGE;
	}
	if (q->stop == Q_ON && since(&q->start) >= (double)q->d->timeout)
		q->stop = Q_LATE;
	return q->stop != Q_ON;
}

/* What one server did in a query, read from libdebuginfod's transcript
 * (its verbose output, elfutils 0.188: "init server I URL/buildid",
 * "query N urls in parallel", "committed to url I" once server I sends
 * the file, then per finished transfer "server response CURL-MESSAGE"
 * and, when curl said more, "url I ERROR-BUFFER"). The
 * transcript is the only place libdebuginfod tells its servers apart: it
 * asks them all at once and returns one verdict. */
enum { SV_NONE, SV_ANSWERED, SV_FAILED };

struct verdict {
	char url[256];
	int state;
	char why[160];
};

struct transcript {
	struct verdict v[FK_MAX_DEBUGINFOD_SERVERS];
	int nservers;                  /* servers asked, or 0 when unknown */
	int sender;                    /* the server sending the file, or -1 */
	int unattributed;              /* a failure no server was named for */
};

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int index_of(const char *s, const char **rest)
{
	uint64_t i;
	size_t k = strspn(s, "0123456789");
	if (k == 0 || s[k] != ' ' || fk_parse_u64(s, k, &i) != 0 ||
	    i >= FK_MAX_DEBUGINFOD_SERVERS)
		return -1;
	*rest = s + k + 1;
	return (int)i;
}

/* Server i's verdict from curl's message resp and its error buffer err
 * (either may be ""): a 404 (not there) or 406 (over DEBUGINFOD_MAXSIZE)
 * is an answer. */
static void judge(struct verdict *v, const char *resp, const char *err)
{
	if (strcmp(resp, "No error") == 0 || strstr(err, "returned error: 404") ||
	    strstr(err, "returned error: 406")) {
		v->state = SV_ANSWERED;
		return;
	}
	v->state = SV_FAILED;
	snprintf(v->why, sizeof v->why, "%s",
		 strstr(resp, "HTTP response") && err[0] ? err : resp);
	lower(v->why);
}

/* Reads text (NUL-terminated, modified) into t; a retried query (the
 * transcript repeats) is judged by its last round. */
static void read_transcript(char *text, struct transcript *t)
{
	char pending[160] = "";
	int have = 0;
	memset(t, 0, sizeof *t);
	t->sender = -1;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		const char *rest;
		int i;
		if (strncmp(line, "init server ", 12) == 0 &&
		    (i = index_of(line + 12, &rest)) >= 0) {
			size_t n = strlen(rest);
			if (n >= 7 && strcmp(rest + n - 7, "buildid") == 0)
				n -= 7;
			snprintf(t->v[i].url, sizeof t->v[i].url, "%.*s", (int)n, rest);
			t->v[i].state = SV_NONE;
			t->unattributed = 0;
			have = 0;
		} else if (sscanf(line, "query %d urls in parallel", &i) == 1) {
			t->nservers = i > 0 && i <= FK_MAX_DEBUGINFOD_SERVERS ? i : 0;
			t->sender = -1;
		} else if (sscanf(line, "committed to url %d", &i) == 1) {
			t->sender = i >= 0 && i < FK_MAX_DEBUGINFOD_SERVERS ? i : -1;
		} else if (strncmp(line, "server response ", 16) == 0) {
			if (have && strcmp(pending, "No error") != 0)
				t->unattributed = 1;
			snprintf(pending, sizeof pending, "%s", line + 16);
			have = 1;
		} else if (have && strncmp(line, "url ", 4) == 0 &&
			   (i = index_of(line + 4, &rest)) >= 0) {
			judge(&t->v[i], pending, rest);
			have = 0;
		}
	}
	if (have && strcmp(pending, "No error") != 0)
		t->unattributed = 1;
}

/* Reads the transcript libdebuginfod wrote to fd; 0, or -1. */
static int take_transcript(int fd, struct transcript *t)
{
	char *buf = malloc(FK_MAX_DEBUGINFOD_TRANSCRIPT + 1);
	size_t n = 0;
	ssize_t k;
	if (!buf || lseek(fd, 0, SEEK_SET) != 0) {
		free(buf);
		return -1;
	}
	while (n < FK_MAX_DEBUGINFOD_TRANSCRIPT &&
	       (k = read(fd, buf + n, FK_MAX_DEBUGINFOD_TRANSCRIPT - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	read_transcript(buf, t);
	free(buf);
	return 0;
}

/* Whether url is one of the servers DEBUGINFOD_URLS names: the
 * transcript also holds the winning server's response headers, so a line
 * there may be the server's words, not libdebuginfod's. */
static const char *named_server(const struct fk_dinfod *d, const char *url, size_t *len)
{
	/* libdebuginfod adds "buildid" after a '/', else "/buildid": the
	 * same URL with and without its last '/'. */
	size_t n = strlen(url);
	if (n > 0 && url[n - 1] == '/')
		n--;
	for (const char *p = d->urls + strspn(d->urls, " "); *p; ) {
		size_t k = strcspn(p, " "), m = k;
		if (m > 0 && p[m - 1] == '/')
			m--;
		if (m == n && memcmp(p, url, n) == 0) {
			*len = k;
			return p;
		}
		p += k + strspn(p + k, " ");
	}
	return NULL;
}

/* Printable ASCII only: curl's messages quote what servers send. */
static void printable(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '?';
}

/* Under d's lock: notes server url failing (once per server). */
static void note_server(struct fk_dinfod *d, const char *url, const char *why)
{
	size_t n;
	const char *name = named_server(d, url, &n);
	char spelled[256];

	if (!name)
		return;
	/* As the user spelled it. */
	snprintf(spelled, sizeof spelled, "%.*s", (int)n, name);
	for (size_t i = 0; i < d->nfailed; i++)
		if (strcmp(d->failed[i].url, spelled) == 0)
			return;
	if (d->nfailed == FK_MAX_DEBUGINFOD_SERVERS)
		return;
	struct server *s = &d->failed[d->nfailed++];
	snprintf(s->url, sizeof s->url, "%s", spelled);
	snprintf(s->why, sizeof s->why, "%s", why);
	printable(s->why);
}

/* Takes in what one query q showed: servers that failed are noted, and
 * the run stops asking when a query was cut at the deadline or the size
 * bound (every query would be again), when every server failed, or when
 * a failure cannot be put down to a server (t NULL: no transcript). rc is
 * libdebuginfod's result. */
static void settle(struct fk_dinfod *d, const struct transcript *t, int rc,
		   const struct query *q)
{
	/* Not found on any server is an answer, and so is a file larger
	 * than DEBUGINFOD_MAXSIZE or the bound (a 406, or the length the
	 * server announced). */
	int cut = q->stop == Q_LATE || q->stop == Q_LARGE;
	int failed = cut || q->stop == Q_OTHER ||
		     (q->stop == Q_ON && rc < 0 && rc != -ENOENT && rc != -EFBIG);
	char why[160];
	int named = 0;

	if (q->stop == Q_LATE)
		snprintf(why, sizeof why, "no answer within %ld s", d->timeout);
	else if (q->stop == Q_LARGE)
		snprintf(why, sizeof why, "sent more than %" PRIu64 " bytes", d->maxsize);
	else if (q->stop == Q_OTHER)
		snprintf(why, sizeof why, "sent a file that is not the debug file of "
			 "build-id %.64s (removed from the cache)", q->hex);
	else
		snprintf(why, sizeof why, "%s", strerror(rc < 0 ? -rc : EIO));
	lower(why);
	pthread_mutex_lock(&d->lock);
	for (int i = 0; t && i < FK_MAX_DEBUGINFOD_SERVERS; i++) {
		const struct verdict *v = &t->v[i];
		/* What was cut or refused is the sending server's doing; a
		 * query cut before any sent, every silent server's. */
		int blamed = q->stop != Q_ON && q->stop != Q_ANNOUNCED &&
			     (t->sender >= 0 ? i == t->sender : cut && v->state == SV_NONE);
		if (!v->url[0] || !(blamed || v->state == SV_FAILED))
			continue;
		note_server(d, v->url, blamed ? why : v->why);
		/* Named now or before: the failure is that server's. */
		size_t n;
		named |= named_server(d, v->url, &n) != NULL;
	}
	/* A transfer that failed without curl naming its server counts as a
	 * failure of no one server. */
	if (t && t->unattributed)
		named = 0;
	if (failed && !named && !d->why[0])
		snprintf(d->why, sizeof d->why, "%s", why);
	if (cut || (failed && !named) ||
	    (t && t->nservers > 0 && d->nfailed >= (size_t)t->nservers))
		d->stop = 1;
	pthread_mutex_unlock(&d->lock);
}

int fk_dinfod_find(struct fk_dinfod *d, const unsigned char *bid, size_t len,
		   fk_dinfod_check_fn *check, void *ctx)
{
	if (!d || len == 0 || len > 64)
		return -1;
	pthread_mutex_lock(&d->lock);
	int stop = d->stop;
	d->skipped += stop ? 1 : 0;
	pthread_mutex_unlock(&d->lock);
	if (stop)
		return -1;
	struct query q = { .d = d, .tmp = -1, .stop = Q_ON };
	for (size_t i = 0; i < len; i++)
		snprintf(q.hex + 2 * i, 3, "%02x", bid[i]);
	clock_gettime(CLOCK_MONOTONIC, &q.start);
	/* A client per query: one is not to be shared between threads, and
	 * making one costs a curl multi handle. */
	debuginfod_client *c = lib.begin();
	if (!c) {
		settle(d, NULL, -ENOMEM, &q);
		return -1;
	}
	lib.set_user_data(c, &q);
	lib.set_progressfn(c, progress);
	/* The transcript, in memory (on the hook's threads, in its own
	 * descriptor table). */
	int vfd = d->transcript ? memfd_create("flamekit-debuginfod", MFD_CLOEXEC) : -1;
	if (vfd >= 0)
		lib.set_verbose_fd(c, vfd);
	char *path = NULL;
	int fd = lib.find_debuginfo(c, bid, (int)len, &path), got = -1;
	lib.end(c);
	if (fd >= 0) {
		/* Opened again, and checked, by the caller. A file that is
		 * not the one asked for would be given again by the cache
		 * instead of asked for. */
		close(fd);
		got = check(ctx, path);
		if (got == FK_DINFOD_OTHER) {
			unlink(path);
			q.stop = Q_OTHER;
		}
	}
	struct transcript t;
	int have = vfd >= 0 && take_transcript(vfd, &t) == 0;
	if (vfd >= 0)
		close(vfd);
	settle(d, have ? &t : NULL, fd, &q);
	free(path);
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
	pthread_mutex_destroy(&d->lock);
	free(d->urls);
	free(d);
}
