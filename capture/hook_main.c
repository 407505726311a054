/* SPDX-License-Identifier: MIT */
/* libflamekit-hook's life cycle and public API (flamekit_hook.h): the
 * default malloc_conf, the constructor that starts the server when
 * FLAMEKIT_HTTP is set, fork and exec handling, and the calls a program
 * that links the library makes. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "flamekit_hook.h"
#include "hook_int.h"
#include "num.h"

/* Profiling enabled, sampling off: free until someone turns it on; with
 * cumulative counts, which /debug/pprof/allocs serves (their cost: every
 * distinct sampled stack is kept until a reset; bench/README.md). Read by
 * jemalloc only when this library precedes libjemalloc.so.2 in the lookup
 * order and the program defines none; MALLOC_CONF overrides it. */
FK_HOOK_API const char *malloc_conf =
	"prof:true,prof_active:false,lg_prof_sample:19,prof_accum:true";

/* Marks which process owns FLAMEKIT_HTTP: exec'd descendants, which inherit
 * LD_PRELOAD and the environment, see another pid and stay quiet. */
#define OWNER_ENV "FLAMEKIT_HTTP_OWNER"

/* st_lock serialises starting and stopping the server; it is never held
 * while waiting for the hook's thread, and that thread never takes it.
 * The counters the routes read are atomics, so a request being served
 * never waits for a stop in progress. */
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static int stopping;               /* stops in progress, under st_lock */
static int sigfd = -1;

/* The unix socket this process created, removed when it stops serving. */
static struct {
	char path[108];
	dev_t dev;
	ino_t ino;
} sock;

static void remember_socket(const struct fk_addr *a)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;
	struct stat st;

	sock.path[0] = '\0';
	if (a->family != AF_UNIX || un->sun_path[0] == '\0' ||
	    stat(un->sun_path, &st) < 0)
		return;
	snprintf(sock.path, sizeof sock.path, "%s", un->sun_path);
	sock.dev = st.st_dev;
	sock.ino = st.st_ino;
}

/* Removes the socket file, unless another process has replaced it. */
static void remove_socket(void)
{
	struct stat st;

	if (sock.path[0] && stat(sock.path, &st) == 0 && st.st_dev == sock.dev &&
	    st.st_ino == sock.ino)
		unlink(sock.path);
	sock.path[0] = '\0';
}

static void set_errbuf(char *buf, size_t size, const struct fk_err *err)
{
	if (buf && size > 0)
		snprintf(buf, size, "%s", err->msg);
}

/* fork: the forking thread holds both locks across it, so the child's
 * copies are consistent and unlocked by their owner, never re-initialised
 * (prepare runs before jemalloc's own, whose handlers were registered
 * first; the child handler after it). A fork waits for a dump in progress. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&st_lock);
	fk_je_atfork(0);
	fk_state_atfork(0);
}

static void fork_parent(void)
{
	fk_state_atfork(1);
	fk_je_atfork(1);
	pthread_mutex_unlock(&st_lock);
}

static void forked_child(void)
{
	fk_state_atfork(2);
	fk_je_atfork(2);
	pthread_mutex_unlock(&st_lock);
	fk_state_forget();
	stopping = 0;
	fk_loop_forget();
	fk_sig_atfork_child();
}

static void register_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, forked_child);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* FLAMEKIT_SNAPSHOT_S, FLAMEKIT_SNAPSHOT_MB and FLAMEKIT_CACHE_MB into
 * the settings (hook_env.c). */
static int snap_env(struct fk_err *err)
{
	return fk_env_read(err);
}

static int start_locked(const char *addr, struct fk_loop **old, struct fk_err *err)
{
	const char *allow = getenv("FLAMEKIT_HTTP_ALLOW_REMOTE");
	const char *token = getenv("FLAMEKIT_TOKEN");
	const char *maxs = getenv("FLAMEKIT_MAX_SAMPLES");
	struct fk_addr a;
	struct MHD_Daemon *d;
	int fd;

	if (fk_loop_serving())
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook already serves HTTP in this process");
	if (stopping)
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook's server is still stopping");
	if (fk_addr_parse(addr, 0, &a, err) < 0)
		return -1;
	if (maxs && *maxs) {
		uint64_t v;

		if (fk_parse_u64(maxs, strlen(maxs), &v) < 0 || v > UINT32_MAX)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_MAX_SAMPLES '%.40s': "
					  "want 0 (no limit) to %u", maxs, UINT32_MAX);
		fk_serve_max_samples = (size_t)v;
	}
	if (snap_env(err) < 0)
		return -1;
	memset(&fk_guard, 0, sizeof fk_guard);
	if (token && *token) {
		if (strlen(token) >= sizeof fk_guard.token)
			return fk_err_set(err, FK_ELIMIT, 0, "FLAMEKIT_TOKEN too long");
		snprintf(fk_guard.token, sizeof fk_guard.token, "%s", token);
	}
	if (!a.loopback) {
		if (!allow || strcmp(allow, "1") != 0 || !fk_guard.token[0])
			return fk_err_set(err, FK_EUNSUPP, 0,
					  "refusing to listen on non-loopback address '%s': set "
					  "FLAMEKIT_HTTP_ALLOW_REMOTE=1 and FLAMEKIT_TOKEN to allow it", addr);
		fk_guard.remote = 1;
	}
	fd = fk_addr_listen(&a, 128, err);
	if (fd < 0)
		return -1;
	d = fk_http_new(fd, fk_routes_handle, err);
	if (!d)
		return -1;
	/* A signal-only loop is replaced by one that also serves; the old one
	 * is ended by the caller, outside the lock. */
	*old = fk_loop_take();
	if (fk_loop_start(d, sigfd, err) < 0) {
		fk_http_free(d);
		return -1;
	}
	remember_socket(&a);
	return 0;
}

int fk_hook_start(const char *addr, char *errbuf, size_t errsize)
{
	struct fk_loop *old = NULL;
	struct fk_err err;
	int rc;

	fk_err_init(&err, NULL);
	if (!addr) {
		fk_err_set(&err, FK_ESYNTAX, 0, "no address");
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&st_lock);
	rc = start_locked(addr, &old, &err);
	if (old) {
		/* A signal-only loop: its thread takes no lock, the wait is short. */
		stopping++;
		pthread_mutex_unlock(&st_lock);
		fk_loop_end(old, -1);
		pthread_mutex_lock(&st_lock);
		stopping--;
		/* Failed after all: the signal dump keeps working. */
		if (rc < 0 && sigfd >= 0 && !fk_loop_running())
			fk_loop_start(NULL, sigfd, &err);
	}
	pthread_mutex_unlock(&st_lock);
	if (rc < 0)
		set_errbuf(errbuf, errsize, &err);
	return rc;
}

void fk_hook_stop(void)
{
	struct fk_loop *lp = NULL;
	struct fk_err err;

	pthread_mutex_lock(&st_lock);
	if (fk_loop_serving()) {
		lp = fk_loop_take();
		stopping++;
	}
	pthread_mutex_unlock(&st_lock);
	if (!lp)
		return;
	/* Waits for the request in progress (every later one gets 503). */
	fk_loop_end(lp, -1);
	fk_serve_cache_drop();
	pthread_mutex_lock(&st_lock);
	remove_socket();
	stopping--;
	/* The signal dump, if configured, keeps working. */
	if (sigfd >= 0 && !fk_loop_running())
		fk_loop_start(NULL, sigfd, &err);
	pthread_mutex_unlock(&st_lock);
}

int fk_hook_set_active(int active, int lg_sample, char *errbuf, size_t errsize)
{
	struct fk_err err;

	fk_err_init(&err, NULL);
	if (fk_je_set_active(active, lg_sample, &err) < 0) {
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	fk_state_note_active(active, lg_sample >= 0);
	fk_state_save(active, lg_sample);
	return 0;
}

int fk_hook_set_mallctl(fk_hook_mallctl_fn fn, char *errbuf, size_t errsize)
{
	struct fk_err err;

	fk_err_init(&err, NULL);
	if (fk_je_set_api(fn, &err) < 0) {
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	return 0;
}

int fk_hook_status(struct fk_hook_status *st)
{
	enum fk_je_avail av;
	double since;

	if (!st)
		return -1;
	memset(st, 0, sizeof *st);
	av = fk_je_check(NULL);
	st->jemalloc_found = av != FK_JE_NOTFOUND;
	st->prof_compiled = av == FK_JE_OK || av == FK_JE_NOTSTARTED;
	st->prof_started = av == FK_JE_OK;
	if (av == FK_JE_OK && fk_je_get_active(&st->active, NULL) < 0)
		st->active = 0;
	st->lg_sample = fk_je_lg_sample();
	since = fk_state_active_since();
	st->active_seconds = st->active && since >= 0 ? fk_now() - since : -1;
	st->dumps_served = fk_state_dumps();
	pthread_mutex_lock(&st_lock);
	st->serving = fk_loop_serving();
	pthread_mutex_unlock(&st_lock);
	return 0;
}

int fk_hook_dump(int fd, const char *format, char *errbuf, size_t errsize)
{
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	struct fk_err err;
	char *out = NULL, *p;
	size_t len = 0, maplen = 0;
	int fmt, old = 0, had = 0, rc;

	fk_err_init(&err, NULL);
	fmt = fk_fmt_parse(format ? format : "pprof");
	if (fmt < 0) {
		fk_err_set(&err, FK_ESYNTAX, 0, "unknown format '%.40s'", format);
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	/* This thread's own allocations while dumping stay out of the profile. */
	had = fk_je_thread_active(0, &old) == 0;
	rc = fk_serve_produce(fmt, &o, &out, &len, &maplen, &err);
	if (rc > 0)
		rc = fk_err_set(&err, FK_EUNSUPP, 0, "%s", FK_HOOK_NOTHING_SAMPLED);
	for (p = out; rc == 0 && len > 0;) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = fk_err_set(&err, FK_EIO, 0, "write: %s",
					w < 0 ? strerror(errno) : "wrote nothing");
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	fk_hook_buf_release(out, maplen);
	if (had)
		fk_je_thread_active(old, NULL);
	if (rc < 0)
		set_errbuf(errbuf, errsize, &err);
	return rc;
}

/* Whether this process owns FLAMEKIT_HTTP (see OWNER_ENV); claims it if no
 * process did. A process that exec'd itself keeps its pid and stays owner. */
static int claim_owner(void)
{
	const char *o = getenv(OWNER_ENV);
	char buf[32];
	uint64_t pid;

	if (o && *o) {
		if (fk_parse_u64(o, strlen(o), &pid) == 0 && pid != (uint64_t)getpid())
			return 0;
	}
	snprintf(buf, sizeof buf, "%ld", (long)getpid());
	setenv(OWNER_ENV, buf, 1);
	return 1;
}

__attribute__((constructor)) static void fk_hook_init(void)
{
	const char *addr = getenv("FLAMEKIT_HTTP");
	const char *signame = getenv("FLAMEKIT_DUMP_SIGNAL");
	struct fk_err err;
	void *probe;

	if ((!addr || !*addr) && (!signame || !*signame))
		return;
	if (!claim_owner())
		return;
	/* Let jemalloc initialise (and register its fork handlers) first, so
	 * ours run in the documented order. */
	probe = malloc(1);
	free(probe);
	pthread_once(&atfork_once, register_atfork);
	fk_err_init(&err, NULL);
	if (signame && *signame) {
		sigfd = fk_sig_install(&err);
		if (sigfd < 0)
			fprintf(stderr, "flamekit-hook: %s\n", err.msg);
	}
	if (addr && *addr) {
		char buf[300];

		fk_state_init();
		if (fk_hook_start(addr, buf, sizeof buf) < 0)
			fprintf(stderr, "flamekit-hook: FLAMEKIT_HTTP=%s: %s\n", addr, buf);
		return;
	}
	if (sigfd >= 0 && fk_loop_start(NULL, sigfd, &err) < 0)
		fprintf(stderr, "flamekit-hook: %s\n", err.msg);
}

__attribute__((destructor)) static void fk_hook_fini(void)
{
	struct fk_loop *lp;
	struct timespec ts;

	/* Stop serving before the host's memory goes away under the thread,
	 * but never hold up the host's exit for long: the lock may be held by
	 * a thread that exit() interrupted, and the hook's thread may be in
	 * the middle of a conversion. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 1;
	if (pthread_mutex_clocklock(&st_lock, CLOCK_MONOTONIC, &ts) != 0)
		return;
	lp = fk_loop_take();
	pthread_mutex_unlock(&st_lock);
	fk_loop_end(lp, FK_HOOK_EXIT_WAIT);
	remove_socket();
}
