/* SPDX-License-Identifier: MIT */
/* libflamekit-hook's life cycle and public API (flamekit_hook.h): the
 * default malloc_conf, the constructor that starts the server when
 * FLAMEKIT_HTTP is set, fork and exec handling (a forked child of a
 * serving process becomes one of its program's workers, hook_group.c),
 * and the calls a program that links the library makes. */
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
#include "io.h"
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
static struct {
	pthread_mutex_t st_lock;
	int stopping;              /* stops in progress, under st_lock */
	int signum;                /* FLAMEKIT_DUMP_SIGNAL's, -1 none */
	int owner;                 /* this image claimed FLAMEKIT_HTTP */
	/* The unix socket this process created, removed when it stops
	 * serving. */
	struct {
		char path[108];
		dev_t dev;
		ino_t ino;
	} sock;
	/* fk_hook_handle's first call: the settings read once, and why not. */
	int handed_read;
	struct fk_err handed_err;
} hk = { .st_lock = PTHREAD_MUTEX_INITIALIZER, .signum = -1 };

static void remember_socket(const struct fk_addr *a)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;
	struct stat st;

	hk.sock.path[0] = '\0';
	if (a->family != AF_UNIX || un->sun_path[0] == '\0' ||
	    stat(un->sun_path, &st) < 0)
		return;
	snprintf(hk.sock.path, sizeof hk.sock.path, "%s", un->sun_path);
	hk.sock.dev = st.st_dev;
	hk.sock.ino = st.st_ino;
}

/* Removes the socket file, unless another process has replaced it. */
static void remove_socket(void)
{
	struct stat st;

	if (hk.sock.path[0] && stat(hk.sock.path, &st) == 0 && st.st_dev == hk.sock.dev &&
	    st.st_ino == hk.sock.ino)
		unlink(hk.sock.path);
	hk.sock.path[0] = '\0';
}

static void set_errbuf(char *buf, size_t size, const struct fk_err *err)
{
	if (buf && size > 0)
		snprintf(buf, size, "%s", err->msg);
}

/* fork: the forking thread holds the hook's short locks across it, so the
 * child's copies are consistent and unlocked by their owner (prepare runs
 * before jemalloc's own, whose handlers were registered first; the child
 * handler after it). The fork table below holds them in their order
 * (docs/hook.md, "Locks"): st_lock first, then each file's, which its
 * handler takes at phase 0 (prepare), releases at 1 (parent) and releases
 * or makes anew at 2 (child); each lock is held only around calls that
 * take those after it. None of them is ever held while waiting for
 * another lock of the hook's or for a dump, so no fork waits for the
 * hook's thread: the dump lock is made anew in the child, and what it
 * guards is left there. The child of a serving process becomes a worker
 * of its program: a thread of its own, its private socket, its own
 * profile. */
static void (*const fork_table[])(int phase) = {
	fk_arena_atfork,     /* ar.mu */
	fk_sampling_atfork,  /* sm.mu */
	fk_je_atfork,        /* je.mu; je.dump_lock made anew in the child */
	fk_serve_atfork,     /* sv.mu */
	fk_state_atfork,     /* st.mu */
};
#define NFORK (sizeof fork_table / sizeof fork_table[0])

static void fork_prepare(void)
{
	pthread_mutex_lock(&hk.st_lock);
	for (size_t i = 0; i < NFORK; i++)
		fork_table[i](0);
}

static void fork_parent(void)
{
	for (size_t i = NFORK; i-- > 0;)
		fork_table[i](1);
	pthread_mutex_unlock(&hk.st_lock);
}

static void forked_child(void)
{
	struct fk_loop_cfg cfg;
	struct fk_err err;
	int had;

	for (size_t i = NFORK; i-- > 0;)
		fork_table[i](2);
	fk_state_forget(0);
	hk.stopping = 0;
	hk.owner = 0;
	/* The parent's unix socket file is the parent's to remove. */
	hk.sock.path[0] = '\0';
	had = fk_loop_forget(&cfg);
	fk_group_atfork_child();
	fk_sig_atfork_child();
	if (fk_serve_ops())
		fk_serve_ops()->atfork_child();
	if (had && cfg.http && !cfg.mounted) {
		cfg.member = 1;
		fk_err_init(&err, NULL);
		if (fk_loop_start(&cfg, &err) < 0)
			fk_log("worker %ld: %s", (long)getpid(), err.msg);
	}
	pthread_mutex_unlock(&hk.st_lock);
}

static void register_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, forked_child);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Under st_lock: a loop for the dump signal alone, when one is asked for
 * and no loop runs. */
static void signal_loop(void)
{
	struct fk_loop_cfg cfg;
	struct fk_err err;

	if (hk.signum <= 0 || fk_loop_running())
		return;
	memset(&cfg, 0, sizeof cfg);
	cfg.sig = hk.signum;
	fk_err_init(&err, NULL);
	if (fk_loop_start(&cfg, &err) < 0)
		fk_log("%s", err.msg);
}

/* The group this listener serves: the one an earlier image of the same
 * pid left (its workers forked before the exec rejoin it), else a new
 * one, recorded for the next image. */
static void group_init(void)
{
	char name[FK_GROUP_NAME_MAX];
	uid_t uid;

	if (fk_state_group(name, sizeof name, &uid) == 0) {
		fk_group_init(name, uid);
		return;
	}
	fk_group_init(NULL, geteuid());
	fk_state_save_group(fk_group_name(), fk_group_first_uid());
}

/* Starts the server (0), or takes a running loop that must end first
 * into *old (1; call again once it ended), or -1 with err. */
static int start_locked(const char *addr, struct fk_loop **old, struct fk_err *err)
{
	struct fk_loop_cfg cfg;

	memset(&cfg, 0, sizeof cfg);
	if (fk_loop_serving() && !fk_loop_member())
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook already serves HTTP in this process");
	if (hk.stopping)
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook's server is still stopping");
	if (fk_addr_parse(addr, 0, &cfg.addr, err) < 0)
		return -1;
	if (fk_env_start(cfg.addr.loopback, addr, err) < 0)
		return -1;
	cfg.http = 1;
	cfg.sig = hk.signum > 0 ? hk.signum : 0;
	/* A signal-only loop, or a worker's (a forked child that starts a
	 * server of its own), is replaced by one that serves; the old one is
	 * ended by the caller, outside the lock, so the new one starts after
	 * it. */
	if (fk_loop_running()) {
		*old = fk_loop_take();
		return 1;
	}
	group_init();
	if (fk_loop_start(&cfg, err) < 0)
		return -1;
	remember_socket(&cfg.addr);
	return 0;
}

/* Under st_lock: ends old, a loop taken out (a signal-only or worker's
 * loop that a new one replaces), with the lock released meanwhile; its
 * thread takes no lock of ours, so the wait is short. */
static void end_unlocked(struct fk_loop *old)
{
	hk.stopping++;
	pthread_mutex_unlock(&hk.st_lock);
	fk_loop_end(old, -1);
	pthread_mutex_lock(&hk.st_lock);
	hk.stopping--;
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
	pthread_mutex_lock(&hk.st_lock);
	rc = start_locked(addr, &old, &err);
	if (old) {
		end_unlocked(old);
		rc = start_locked(addr, &old, &err);
		/* Failed after all: the signal dump keeps working. */
		if (rc < 0)
			signal_loop();
	}
	pthread_mutex_unlock(&hk.st_lock);
	if (rc < 0)
		set_errbuf(errbuf, errsize, &err);
	return rc;
}

void fk_hook_stop(void)
{
	struct fk_loop *lp = NULL;

	pthread_mutex_lock(&hk.st_lock);
	if (fk_loop_serving()) {
		lp = fk_loop_take();
		hk.stopping++;
	}
	pthread_mutex_unlock(&hk.st_lock);
	if (!lp)
		return;
	/* Waits for the request in progress (every later one gets 503); the
	 * thread frees the module cache, whose files are in its table. */
	fk_loop_end(lp, -1);
	pthread_mutex_lock(&hk.st_lock);
	remove_socket();
	hk.stopping--;
	/* The signal dump, if configured, keeps working. */
	signal_loop();
	pthread_mutex_unlock(&hk.st_lock);
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
	pthread_mutex_lock(&hk.st_lock);
	st->serving = fk_loop_serving();
	pthread_mutex_unlock(&hk.st_lock);
	return 0;
}

/* One dump for fk_hook_dump, made on the hook's thread when one runs
 * (the module cache's files are open in its table). */
struct dump_job {
	const struct fk_serve_ops *ops;
	int fmt;
	char *out;
	size_t len, maplen;
	struct fk_err err;
	int rc;
};

/* Loads the serving half for a dump, on the hook's thread when one runs:
 * its libraries' start-up allocations are the hook's own. */
static void load_job(void *arg)
{
	struct dump_job *j = arg;
	struct fk_arena_save sv;
	int old = 0, had;

	fk_err_init(&j->err, NULL);
	had = fk_je_thread_active(0, &old) == 0;
	fk_arena_begin(&sv);
	j->ops = fk_serve_load(&j->err);
	fk_arena_end(&sv);
	if (had)
		fk_je_thread_active(old, NULL);
}

static void dump_job_run(void *arg)
{
	struct dump_job *j = arg;
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	int old = 0, had;

	struct fk_arena_save sv;

	/* The calling thread's own allocations stay out of the profile, and
	 * out of the program's arenas (a no-op on the hook's thread). */
	had = fk_je_thread_active(0, &old) == 0;
	fk_arena_begin(&sv);
	j->rc = j->ops->produce(j->fmt, &o, &j->out, &j->len, &j->maplen, &j->err);
	fk_arena_end(&sv);
	if (had)
		fk_je_thread_active(old, NULL);
}

int fk_hook_dump(int fd, const char *format, char *errbuf, size_t errsize)
{
	struct dump_job j;
	struct fk_arena_save sv;
	struct fk_err err;
	char *out = NULL;
	size_t len = 0, maplen = 0;
	int fmt, rc;

	fk_err_init(&err, NULL);
	memset(&j, 0, sizeof j);
	fk_loop_call(load_job, &j);
	if (!j.ops) {
		set_errbuf(errbuf, errsize, &j.err);
		return -1;
	}
	fmt = j.ops->fmt_parse(format ? format : "pprof");
	if (fmt < 0) {
		fk_err_set(&err, FK_ESYNTAX, 0, "unknown format '%.40s'", format);
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	j.fmt = fmt;
	fk_err_init(&j.err, NULL);
	fk_loop_call(dump_job_run, &j);
	rc = j.rc;
	out = j.out;
	len = j.len;
	maplen = j.maplen;
	err = j.err;
	if (rc > 0)
		rc = fk_err_set(&err, FK_EUNSUPP, 0, "%s", FK_HOOK_NOTHING_SAMPLED);
	if (rc == 0 && fk_write_all(fd, out, len) < 0)
		rc = fk_err_set(&err, FK_EIO, 0, "write: %s",
				errno ? strerror(errno) : "wrote nothing");
	/* The buffer came from the hook's arena: back there, not into this
	 * thread's cache. */
	fk_arena_begin(&sv);
	fk_hook_buf_release(out, maplen);
	fk_arena_end(&sv);
	if (rc < 0)
		set_errbuf(errbuf, errsize, &err);
	return rc;
}

/* The hook's thread with no socket, for fk_hook_handle: the routes run
 * there as on the hook's own server, and so do the snapshots' timer and
 * the sampling backtrace's set-up. A signal-only loop is replaced (ended
 * outside the lock, as start_locked's caller does); a serving one, a
 * worker's or a mounted one is kept. */
static void mount_loop(void)
{
	struct fk_loop_cfg cfg;
	struct fk_loop *old;
	struct fk_err err;

	pthread_mutex_lock(&hk.st_lock);
	if (hk.stopping || fk_loop_serving() || fk_loop_mounted()) {
		pthread_mutex_unlock(&hk.st_lock);
		return;
	}
	old = fk_loop_take();
	if (old)
		end_unlocked(old);
	if (!fk_loop_running()) {
		memset(&cfg, 0, sizeof cfg);
		cfg.http = cfg.mounted = 1;
		cfg.sig = hk.signum > 0 ? hk.signum : 0;
		fk_err_init(&err, NULL);
		if (fk_loop_start(&cfg, &err) < 0)
			fk_log("%s", err.msg);
	}
	pthread_mutex_unlock(&hk.st_lock);
}

/* fk_hook_handle's settings when no server of the hook's read them: once,
 * under st_lock, as a start reads them; remote clients (a Host that is
 * not loopback) with FLAMEKIT_HTTP_ALLOW_REMOTE=1 and FLAMEKIT_TOKEN, as
 * for a server on a non-loopback address. */
static int handed_settings(struct fk_err *err)
{
	int rc = 0;

	pthread_mutex_lock(&hk.st_lock);
	if (!fk_loop_serving() && !hk.handed_read) {
		const struct fk_env *e = fk_env_get();

		hk.handed_read = 1;
		fk_err_init(&hk.handed_err, NULL);
		if (fk_env_start(1, NULL, &hk.handed_err) == 0 && e->allow_remote && e->guard.token[0])
			fk_env_start(0, "the program's own server", &hk.handed_err);
	}
	if (!fk_loop_serving() && hk.handed_err.msg[0]) {
		*err = hk.handed_err;
		rc = -1;
	}
	pthread_mutex_unlock(&hk.st_lock);
	return rc;
}

/* One handed request, run where dumps run (dump_job_run). */
struct handle_job {
	const struct fk_serve_ops *ops;
	const struct fk_handed *h;
	struct fk_handed_answer a;
	int finish;                /* a delta's end, not the routes */
};

static void handle_job_run(void *arg)
{
	struct handle_job *j = arg;
	struct fk_arena_save sv;
	int old = 0, had;

	had = fk_je_thread_active(0, &old) == 0;
	fk_arena_begin(&sv);
	if (j->finish)
		j->ops->handle_finish(&j->a);
	else
		j->ops->handle(j->h, &j->a);
	fk_arena_end(&sv);
	if (had)
		fk_je_thread_active(old, NULL);
}

/* A fk_handed from the API's arguments. */
static void handed_from(struct fk_handed *h, const char *method, const char *target,
			const char *const *headers, size_t nheaders, const struct fk_hook_peer *peer)
{
	memset(h, 0, sizeof *h);
	h->method = method;
	h->target = target;
	h->headers = headers;
	h->nheaders = headers ? nheaders : 0;
	h->peer = FK_HANDED_UNKNOWN;
	if (!peer)
		return;
	switch (peer->kind) {
	case FK_HOOK_PEER_TCP:
		h->peer = FK_HANDED_TCP;
		h->remote = peer->remote;
		h->local = peer->local;
		break;
	case FK_HOOK_PEER_UID:
		h->peer = FK_HANDED_UID;
		h->uid = (uid_t)peer->uid;
		break;
	case FK_HOOK_PEER_VOUCHED:
		h->peer = FK_HANDED_VOUCHED;
		break;
	case FK_HOOK_PEER_UNKNOWN:
		break;
	}
}

int fk_hook_handle(const char *method, const char *target, const char *const *headers,
		   size_t nheaders, const struct fk_hook_peer *peer, struct fk_hook_response *out,
		   char *errbuf, size_t errsize)
{
	struct handle_job j;
	struct fk_handed h;
	struct fk_err err;

	fk_err_init(&err, NULL);
	if (!method || !target || !out || (nheaders && !headers)) {
		fk_err_set(&err, FK_ESYNTAX, 0, "fk_hook_handle: %s is NULL", !method ? "method" :
			   !target ? "target" : !out ? "out" : "headers");
		set_errbuf(errbuf, errsize, &err);
		return -1;
	}
	memset(out, 0, sizeof *out);
	memset(&j, 0, sizeof j);
	pthread_once(&atfork_once, register_atfork);
	handed_from(&h, method, target, headers, nheaders, peer);
	mount_loop();
	if (handed_settings(&err) == 0) {
		struct dump_job load;

		memset(&load, 0, sizeof load);
		fk_loop_call(load_job, &load);
		j.ops = load.ops;
		err = load.err;
	}
	if (!j.ops) {
		/* The serving half, which writes answers, is not there: the
		 * sentence is the answer. */
		j.a.status = 500;
		j.a.body = strdup(err.msg);
		j.a.len = j.a.body ? strlen(j.a.body) : 0;
	} else {
		j.h = &h;
		fk_loop_call(handle_job_run, &j);
	}
	if (j.a.deadline > 0) {
		/* A delta (?seconds=N): its end is made after N seconds, on the
		 * hook's thread as its start was; the caller waits meanwhile. */
		double left;

		while ((left = j.a.deadline - fk_now()) > 0) {
			struct timespec d = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };

			nanosleep(&d, NULL);
		}
		j.finish = 1;
		fk_loop_call(handle_job_run, &j);
	}
	out->status = (int)(j.a.status ? j.a.status : 500);
	out->content_type = j.a.ctype ? j.a.ctype : "text/plain; charset=utf-8";
	out->disposition = j.a.disposition;
	out->body = j.a.body;
	out->len = j.a.len;
	out->maplen_ = j.a.maplen;
	/* HEAD: the headers of GET's answer, no body. */
	if (strcmp(method, "HEAD") == 0)
		fk_hook_response_release(out);
	return 0;
}

void fk_hook_response_release(struct fk_hook_response *r)
{
	struct fk_arena_save sv;

	if (!r || !r->body)
		return;
	/* The body came from the hook's arena: back there. */
	fk_arena_begin(&sv);
	fk_hook_buf_release(r->body, r->maplen_);
	fk_arena_end(&sv);
	r->body = NULL;
	r->len = 0;
}

/* Whether this process owns FLAMEKIT_HTTP (see OWNER_ENV); claims it if no
 * process did. A process that exec'd itself keeps its pid and stays owner. */
static int claim_owner(void)
{
	pid_t o = fk_env_get()->http_owner;
	char buf[32];

	if (o > 0 && o != getpid())
		return 0;
	snprintf(buf, sizeof buf, "%ld", (long)getpid());
	setenv(OWNER_ENV, buf, 1);
	return 1;
}

__attribute__((constructor)) static void fk_hook_init(void)
{
	const struct fk_env *env = fk_env_get();
	const char *addr = env->http;
	struct fk_err err;
	void *probe;
	int sig_bad;

	fk_env_load();
	fk_err_init(&err, NULL);
	sig_bad = fk_env_bad("FLAMEKIT_DUMP_SIGNAL", &err) < 0 ||
		  (env->dump_signal && fk_env_bad("FLAMEKIT_DUMP_DIR", &err) < 0);
	fk_atexit_init();
	if (!*addr && !env->dump_signal && !sig_bad)
		return;
	if (!claim_owner())
		return;
	/* Let jemalloc initialise (and register its fork handlers) first, so
	 * ours run in the documented order. */
	probe = malloc(1);
	free(probe);
	pthread_once(&atfork_once, register_atfork);
	if (sig_bad)
		fk_log("%s", err.msg);
	else if (env->dump_signal && (hk.signum = fk_sig_install(&err)) < 0)
		fk_log("%s", err.msg);
	fk_err_init(&err, NULL);
	if (fk_env_bad("FLAMEKIT_MALLCTL", &err) < 0)
		fk_log("%s", err.msg);
	if (*addr) {
		char buf[300];

		hk.owner = 1;
		fk_state_init();
		if (fk_hook_start(addr, buf, sizeof buf) < 0)
			fk_log("FLAMEKIT_HTTP=%s: %s", addr, buf);
		return;
	}
	pthread_mutex_lock(&hk.st_lock);
	signal_loop();
	pthread_mutex_unlock(&hk.st_lock);
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
	if (pthread_mutex_clocklock(&hk.st_lock, CLOCK_MONOTONIC, &ts) != 0)
		return;
	lp = fk_loop_take();
	pthread_mutex_unlock(&hk.st_lock);
	/* A launcher that served the address while the server it started
	 * stayed quiet (pg_ctl start): with its exit nothing serves. */
	if (hk.owner && lp)
		fk_holder_exit(fk_env_get()->http);
	fk_loop_end(lp, FK_HOOK_EXIT_WAIT);
	remove_socket();
	/* The settings carried across exec: an exit is no exec. */
	if (hk.owner)
		fk_state_forget(1);
}
