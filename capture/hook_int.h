/* Declarations shared by the files of libflamekit-hook (capture/). */
#ifndef FK_HOOK_INT_H
#define FK_HOOK_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"

/* ---- hook_jemalloc.c: finding and driving jemalloc's mallctl ---- */

enum fk_je_avail {
	FK_JE_OK,                  /* profiling compiled in and started */
	FK_JE_NOTFOUND,            /* no mallctl in the process */
	FK_JE_NOTCOMPILED,         /* jemalloc built without --enable-prof */
	FK_JE_NOTSTARTED,          /* started without prof:true */
};

/* Finds mallctl once (FLAMEKIT_MALLCTL, then mallctl, je_mallctl,
 * _rjem_mallctl) and reports whether profiling can be used; *why (may be
 * NULL) gets a sentence saying what to do when it cannot. */
enum fk_je_avail fk_je_check(const char **why);

/* The name of the mallctl found, or NULL. */
const char *fk_je_name(void);

/* Reads prof.active into *active. 0, or -1 with err. */
int fk_je_get_active(int *active, struct fk_err *err);

/* Sets prof.active; when lg_sample >= 0 first resets the profile at that
 * rate (prof.reset). 0, or -1 with err. */
int fk_je_set_active(int active, int lg_sample, struct fk_err *err);

/* prof.lg_sample, or -1 when unknown. */
int fk_je_lg_sample(void);

/* Sets thread.prof.active of the calling thread; *old (may be NULL) gets
 * the previous value. Returns 0, or -1 when jemalloc cannot do it. */
int fk_je_thread_active(int active, int *old);

/* Writes a heap dump through prof.dump into a memfd and maps it: *data
 * holds *len bytes and a NUL after them, in a private mapping of *maplen
 * bytes (no copy: the memfd's pages are mapped). Release it with
 * fk_hook_buf_release. Sampling must be active. The caller holds fk_je_lock (one
 * dump and its conversion at a time in the process). 0, or -1 with err. */
int fk_je_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err);

/* Releases a buffer: munmap of maplen bytes, or free() when maplen is 0. */
void fk_hook_buf_release(char *data, size_t maplen);

/* The process-wide dump lock, and its reset in a forked child. */
void fk_je_lock(void);
void fk_je_unlock(void);
void fk_je_atfork_child(void);

/* Monotonic seconds. */
double fk_now(void);

/* ---- hook_addr.c: listen addresses (also used by fetch.c) ---- */

struct fk_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;                /* AF_INET, AF_INET6 or AF_UNIX */
	int loopback;              /* 127/8, ::1, ::ffff:127/104, or AF_UNIX */
	char text[128];            /* as given, for messages */
};

/* Parses "HOST:PORT", "[V6]:PORT" or "unix:/path". HOST is numeric or
 * "localhost"; other names are resolved only when allow_names. 0 or -1. */
int fk_addr_parse(const char *s, int allow_names, struct fk_addr *a,
		  struct fk_err *err);

/* Creates a listening, close-on-exec socket on a (a stale unix socket file
 * is replaced only if nothing answers on it). Returns the fd or -1. */
int fk_addr_listen(const struct fk_addr *a, int backlog, struct fk_err *err);

/* Whether the Host header value h[0..n) names a loopback address
 * ("localhost", "127.0.0.1", "[::1]", each with an optional ":port"). */
int fk_host_is_loopback(const char *h, size_t n);

/* ---- serve_profile.c: a dump in the requested format ---- */

enum fk_fmt {
	FK_OUT_PPROF, FK_OUT_FLAME, FK_OUT_FOLDED, FK_OUT_RAW, FK_OUT_SYMBOLIZED,
};

/* Looks up a format name; -1 when unknown. */
int fk_fmt_parse(const char *name);

/* The HTTP Content-Type of a format. */
const char *fk_fmt_ctype(int fmt);

/* Options of the flame graph (render-flame's main options). */
struct fk_serve_opts {
	const char *title, *colors;
	double minwidth;           /* < 0: the renderer's default */
	int minwidth_pct;          /* minwidth is a percentage of the total */
	int inverted;
};

/* Checks o before any dump is taken; returns 0, or -1 with *msg a
 * sentence for a 400 answer. */
int fk_serve_check(const struct fk_serve_opts *o, const char **msg);

/* Converts the raw dump dump[0..dlen) (mapping of dmaplen bytes, or
 * malloc'd when 0; consumed) into fmt, symbolized with the live process's
 * own files; the result in *out, *outlen is released with fk_hook_buf_release
 * and *outmaplen (the dump itself for raw). o may be NULL. 0, or -1. */
int fk_serve_convert(char *dump, size_t dlen, size_t dmaplen, int fmt,
		     const struct fk_serve_opts *o, char **out, size_t *outlen,
		     size_t *outmaplen, struct fk_err *err);

/* The growth from raw dump base to raw dump cur (both consumed) as a
 * symbolized pprof in a new buffer; 0, or -1 with err. */
int fk_serve_delta(char *base, size_t blen, size_t bmaplen, char *cur,
		   size_t clen, size_t cmaplen, char **out, size_t *outlen,
		   struct fk_err *err);

/* ---- hook_http.c / hook_routes.c / hook_guard.c: the HTTP server ---- */

struct MHD_Daemon;
struct MHD_Connection;
struct fk_req;                 /* one request's state, hook_http.c */

/* Creates the libmicrohttpd daemon on the listening socket fd (taken over,
 * closed on failure). External polling with epoll: the loop thread drives
 * it. NULL with err on failure. */
struct MHD_Daemon *fk_http_new(int fd, struct fk_err *err);

/* The epoll fd to poll for the daemon. */
int fk_http_poll_fd(struct MHD_Daemon *d);

/* Runs pending work of the daemon, then the deferred (?seconds=N)
 * requests whose time has come. */
void fk_http_run(struct MHD_Daemon *d);

/* Milliseconds until the loop must call fk_http_run again (-1: none). */
int fk_http_timeout(struct MHD_Daemon *d);

/* Answers deferred requests with 503, stops the daemon. NULL is a no-op. */
void fk_http_free(struct MHD_Daemon *d);

/* From any thread: every request not yet routed is answered 503 from now
 * on, so that a stopping loop finishes its current work quickly. */
void fk_http_quit(void);

/* A response to queue. body is owned by the reply: malloc'd, or a
 * mapping of maplen bytes (fk_hook_buf_release). */
struct fk_reply {
	unsigned status;
	const char *ctype;         /* static string */
	const char *disposition;   /* Content-Disposition, static, or NULL */
	char *body;
	size_t len;
	size_t maplen;
};

/* Queues r (taking its body) on c. Returns MHD_YES/MHD_NO. */
int fk_http_queue(struct MHD_Connection *c, struct fk_reply *r);

/* Queues "msg\n" as text/plain with status. Returns MHD_YES/MHD_NO. */
int fk_http_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Defers request rq until deadline (fk_now() seconds): suspends it, then
 * from fk_http_run calls fn(ctx, &reply) and sends that reply. drop(ctx)
 * (may be NULL) is called instead when the server stops first; fn's
 * caller frees nothing of ctx, so fn and drop free it. MHD_YES/MHD_NO. */
int fk_http_defer(struct fk_req *rq, struct MHD_Connection *c, double deadline,
		  void (*fn)(void *ctx, struct fk_reply *r),
		  void (*drop)(void *ctx), void *ctx);

/* Request admission (hook_guard.c): configured once by the starter. */
struct fk_guard {
	int remote;                /* non-loopback clients and Host allowed */
	char token[256];           /* required bearer token, "" = none */
};
extern struct fk_guard fk_guard;

/* Checks one request's method, URL (urilen: the whole target with its
 * query), token, Host and custom header. Returns 0 to admit it, or an HTTP
 * status with *msg a sentence. */
unsigned fk_guard_check(struct MHD_Connection *c, const char *method,
			const char *url, size_t urilen, const char **msg);

/* Handles an admitted request (hook_routes.c). Returns MHD_YES/MHD_NO. */
int fk_route(struct fk_req *rq, struct MHD_Connection *c, const char *method,
	     const char *url);

/* Largest request body accepted (POST bodies are ignored). */
#define FK_HOOK_MAX_BODY 4096
/* Longest URL accepted. */
#define FK_HOOK_MAX_URL 2048
/* Connections served at once; more wait in the listen backlog. */
#define FK_HOOK_MAX_CONN 64
/* Longest ?seconds=N of a delta profile. */
#define FK_HOOK_MAX_SECONDS 3600

/* ---- hook_main.c: state shared with the routes ---- */

/* Counts a dump served; records when sampling was turned on or off. */
void fk_hook_note_dump(void);
void fk_hook_note_active(int active);
double fk_hook_active_since(void);        /* fk_now() of activation, or -1 */
unsigned long fk_hook_dumps(void);

/* Takes the dump lock, dumps, converts to fmt, counts the dump. With
 * FK_EUNSUPP in err->code when sampling is off or jemalloc cannot. */
int fk_hook_produce(int fmt, const struct fk_serve_opts *o, char **out,
		    size_t *len, size_t *maplen, struct fk_err *err);

/* ---- hook_loop.c: the hook's one thread ---- */

/* Starts the loop thread serving d (may be NULL) and the signal pipe sigfd
 * (may be -1). The thread is never sampled and blocks every signal. */
int fk_loop_start(struct MHD_Daemon *d, int sigfd, struct fk_err *err);

/* fk_loop_end(fk_loop_take(), -1): stops the thread and the daemon it
 * served, waiting for the request in progress; never call it holding a
 * lock (hook_main.c takes and ends loops itself). No-op when not running. */
void fk_loop_stop(void);

/* Whether a loop runs, and whether it serves HTTP. */
int fk_loop_running(void);
int fk_loop_serving(void);

/* In a forked child: forgets the thread (which does not exist there) and
 * closes the listening socket, without touching the daemon's locks. */
void fk_loop_forget(void);

struct fk_loop;                /* one loop thread, hook_loop.c */

/* Detaches the running loop from the process (the caller holds the lock
 * that serialises starting and stopping, hook_main.c): afterwards
 * fk_loop_running() is 0. NULL when none runs. */
struct fk_loop *fk_loop_take(void);

/* Stops a detached loop without any lock held: tells its thread to stop,
 * waits for it at most wait seconds (< 0: until it ends), then stops its
 * daemon and frees lp. 0; or -1 when the thread is still busy after wait:
 * it is then left to end on its own, its daemon and lp abandoned (for the
 * exit path, which must not wait for a conversion in progress). */
int fk_loop_end(struct fk_loop *lp, double wait);

/* ---- hook_signal.c: FLAMEKIT_DUMP_SIGNAL ---- */

/* Installs the handler for the signal named by FLAMEKIT_DUMP_SIGNAL; returns
 * the read end of its self-pipe, or -1 (no signal asked for, or err set). */
int fk_sig_install(struct fk_err *err);

/* Drains the pipe and writes one dump into FLAMEKIT_DUMP_DIR (or the
 * current directory) as flamekit.PID.SEQ.heap; stderr line on failure. */
void fk_sig_dump(int fd);

/* In a forked child: gives the handler a pipe of the child's own (same
 * descriptor numbers), so that the child's signals never reach the
 * parent's loop, and restarts the sequence. Async-signal-safe. */
void fk_sig_atfork_child(void);

/* ---- limits of the server, each with its reason ---- */

/* A request (headers and body) must arrive whole within this many seconds
 * of its connection's start, or of the end of the previous request on it:
 * libmicrohttpd's own timeout counts only silence, so a client sending a
 * byte a second would hold a slot for ever. */
#define FK_HOOK_REQUEST_SECONDS 10
/* Silence after which libmicrohttpd closes a connection (one being
 * answered: those still owing their request are cut sooner, above). */
#define FK_HOOK_IDLE_SECONDS 30
/* Deferred requests (?seconds=N) waiting at once: each holds a connection
 * slot for up to FK_HOOK_MAX_SECONDS; the other slots stay for the rest
 * (the settings route above all). */
#define FK_HOOK_MAX_DEFERRED 8
/* Query parameters of a request: no route takes more than a few, and
 * libmicrohttpd 0.9.75 stops answering when they fill its per-connection
 * pool (about 490 of them). */
#define FK_HOOK_MAX_PARAMS 64
/* Connections from one address, with remote access only (on loopback all
 * clients share 127.0.0.1, and a limit would only turn a burst away). */
#define FK_HOOK_MAX_CONN_PER_IP 16
/* While connections are open the loop runs at least this often, to cut
 * slow requests, notice deferred clients that left. */
#define FK_HOOK_POLL_MS 1000
/* Seconds the library's destructor waits for the hook's thread at exit;
 * after that the thread is left to the exit (a conversion in progress is
 * not worth a hung host). */
#define FK_HOOK_EXIT_WAIT 2.0

#define FK_HOOK_STR_(x) #x
#define FK_HOOK_STR(x) FK_HOOK_STR_(x)

#endif
