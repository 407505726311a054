/* SPDX-License-Identifier: MIT */
/* The serving half's own declarations (libflamekit-hook-serve.so.0,
 * SERVE_SRC in capture/build.mk): HTTP, admission, the routes and the
 * formats. It reaches the resident half through hook_private.h only. */
#ifndef FK_SERVE_INT_H
#define FK_SERVE_INT_H

#include "hook_private.h"

/* ---- hook_recent.c: allocation lifetimes (experimental.prof_recent) ---- */
/* The lifetimes route's defaults and bounds: view=temporary without
 * max_ms is what is freed within 100 ms, view=oldest without min_s what
 * is live after a minute; a day either way at most. */
#define FK_HOOK_LIFE_MAX_MS 100
#define FK_HOOK_LIFE_MIN_S 60
#define FK_HOOK_LIFE_MAX_MS_MAX 86400000
#define FK_HOOK_LIFE_MIN_S_MAX 86400

/* The lifetimes raw form (core/life.h): a header with the dump's time in
 * the records' clock, jemalloc's JSON, MAPPED_LIBRARIES and
 * /proc/self/maps, in a mapped memfd released with fk_hook_buf_release.
 * 0, or -1 with err (FK_EUNSUPP: no record is kept, err says why). */
int fk_recent_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err);

/* A lifetimes view (life.h) in fmt (an enum fk_fmt but raw: the record
 * itself; or FK_RECENT_JSON: the per-site figures), symbolized as the
 * heap endpoints are; o (may be NULL) shapes a flame page. Takes the dump
 * lock. 0 with *out, *len, *maplen (release with fk_hook_buf_release); 1
 * when nothing matches (err says what was held and asked: a 409); -1 with
 * err (FK_EUNSUPP: no record is kept). */
#define FK_RECENT_JSON 100
struct fk_life_query;
struct fk_serve_opts;
int fk_recent_serve(const struct fk_life_query *q, int fmt, const struct fk_serve_opts *o,
		    char **out, size_t *len, size_t *maplen, struct fk_err *err);

/* What the list holds now, for the settings. */
struct fk_recent_stats {
	long max;                  /* the bound; 0 off, -1 unknown */
	uint64_t records;          /* records held */
	double oldest_s;           /* age of the oldest held, seconds; -1 unknown */
	int full;                  /* held == max: older ones were dropped */
	double as_of_s;            /* the count's age, seconds (0: counted now) */
	const char *why;           /* why nothing is recorded, or "" */
};

/* A record of fewer than FK_HOOK_RECENT_STATS_EXACT records is counted for
 * every settings request (8192 records take about 40 ms to write out, at
 * the 5 us a record of bench/README.md, "Lifetimes");
 * a larger one at most every FK_HOOK_RECENT_STATS_S seconds, a view's
 * own dump counting too. */
#define FK_HOOK_RECENT_STATS_EXACT 8192
#define FK_HOOK_RECENT_STATS_S 10

/* Fills st (counting the records as jemalloc writes them, without a
 * copy, or from the last count, see FK_HOOK_RECENT_STATS_S). 0, or -1
 * when there is no record (st->why says why). */
int fk_recent_stats(struct fk_recent_stats *st);

/* ---- serve_origin.c: what a flame page says of its profile ---- */
/* What a flame page of the hook says of its profile: its origin's lines
 * (fk_flame_opts.info; man/render-flame.1, "Origin") and its columns. */
struct fk_origin {
	double time;               /* Unix seconds the profile was taken; 0: now */
	uint64_t period;           /* bytes between samples; 0: left out */
	const char *sample_type;   /* a one-column page's values ("inuse_space");
				      NULL: left out (a page of columns
				      names the one shown in its total) */
	const struct fk_life_info *life;   /* a lifetimes record's records and
					      span_s, or NULL */
	double clock_ms;           /* the tick of the clock that timed the
				      record's allocations; 0: left out */
	int columns;               /* every heap sample type, a column each
				      (fk_folded_columns), where the values
				      are a heap's (never negative) */
	int waste;                 /* a "waste" line: the path of this
				      process's waste page, which the live
				      page links to */
};

/* Room for fk_origin_text's lines: a program's path at most
 * FK_MAX_INFO_VALUE bytes, a host name, the waste page's path and a
 * few short lines. */
#define FK_ORIGIN_SIZE (FK_MAX_INFO_VALUE + 640)

/* o's lines into buf[0..FK_ORIGIN_SIZE): the time first (fk_origin_stamp
 * finds it there), the program (this process's executable), pid, host,
 * then o's figures. Returns buf. */
const char *fk_origin_text(const struct fk_origin *o, char *buf);

/* A page kept from an earlier request (serve_memo.c), page[0..len), made
 * with fk_origin_text's lines: its time made the time now, as a kept
 * pprof is stamped. */
void fk_origin_stamp(char *page, size_t len);

/* ---- serve_profile.c: a dump in the requested format ---- */
/* Looks up a format name; -1 when unknown. */
int fk_fmt_parse(const char *name);

/* The HTTP Content-Type of a format. */
const char *fk_fmt_ctype(int fmt);

/* The name of heap sample type i (0 inuse_space, 1 inuse_objects, 2
 * alloc_space, 3 alloc_objects), NULL past the last. */
const char *fk_sample_type_name(int i);

/* Checks o before any dump is taken; returns 0, or -1 with *msg a
 * sentence for a 400 answer. */
int fk_serve_check(const struct fk_serve_opts *o, const char **msg);

/* The name of format fmt (0, 1, ... in enum fk_fmt order), NULL past the
 * last: what messages and the endpoint list show. */
const char *fk_fmt_name(int fmt);

/* Takes the dump lock, dumps, converts to fmt (symbolized with the live
 * process's own files; raw is the dump as jemalloc wrote it), counts the
 * dump: 0, with the result in *out, *len, released with
 * fk_hook_buf_release(*out, *maplen). Or 1 (nothing out) when nothing was
 * sampled since start or the last reset (FK_HOOK_NOTHING_SAMPLED), or -1
 * with err, FK_EUNSUPP in err->code when jemalloc cannot profile. o may be
 * NULL. */
int fk_serve_produce(int fmt, const struct fk_serve_opts *o, char **out,
		     size_t *len, size_t *maplen, struct fk_err *err);

/* A window profile (?seconds=N): begin dumps the base now and returns its
 * context (NULL with err); finish, later, dumps again and fills r with a
 * symbolized pprof of the window (alloc_* values: what was allocated in
 * it; inuse_* values: what is in use at its end; duration_nanos set), or
 * an error, freeing ctx; drop frees ctx when the request ends first. o
 * (copied; may be NULL) gives the pprof's options. */
void *fk_serve_delta_begin(const struct fk_serve_opts *o, struct fk_err *err);
struct fk_reply;
void fk_serve_delta_finish(void *ctx, struct fk_reply *r);
void fk_serve_delta_drop(void *ctx);

/* The windows begun and not yet finished or dropped. */
unsigned fk_serve_windows(void);

/* fk_je_dump less the module cache's own mappings (libelf's views of the
 * files it keeps open), under fk_je_lock: every dump the hook serves or
 * keeps is taken through it. */
int fk_serve_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err);

/* Drops from the MAPPED_LIBRARIES of dump[0..*len) (a heap dump or a
 * lifetimes record, writable) the mappings the module cache made itself,
 * which are no part of the program. */
void fk_serve_drop_own_maps(char *dump, size_t *len);

/* Symbolizes p (a profile made by the hook) as fk_serve_emit does, for a
 * writer of its own (the lifetimes' JSON). 0, or -1 with err. */
int fk_serve_symbolize(struct fk_profile *p, struct fk_err *err);

/* Symbolizes p (a profile made by the hook) and writes it in fmt (not
 * raw), as fk_serve_produce does, a flame page saying what origin says
 * (NULL: nothing): 0 with *out, *len (malloc'd: *maplen 0), or -1 with
 * err. */
int fk_serve_emit(struct fk_profile *p, int fmt, const struct fk_serve_opts *o,
		  const struct fk_origin *origin, char **out, size_t *len, size_t *maplen,
		  struct fk_err *err);

/* A series of ncols snapshots from parts[0..nparts): the stacks of the
 * snapshots that share one set of maps are one part, symbolized once with
 * those maps; for each part and column k, set() fills that part's counts
 * for snapshot k (none when k is not of the part) and the snapshot's
 * metadata. Written as folded text (FK_OUT_FOLDED) or the timeline page
 * (FK_OUT_FLAME, saying what origin says) into a malloc'd *out. 0, or -1
 * with err. */
struct fk_snapmeta;
int fk_serve_series(struct fk_profile *const *parts, size_t nparts, uint32_t ncols,
		    void (*set)(void *ctx, size_t part, uint32_t k, struct fk_profile *p,
				struct fk_snapmeta *m),
		    void *ctx, int fmt, const struct fk_serve_opts *o,
		    const struct fk_origin *origin, char **out, size_t *len, struct fk_err *err);

/* ---- serve_snap.c: snapshots over time ---- */
/* Takes a snapshot now (why: "interval", "peak" or "request"); its id
 * into *id (may be NULL). Takes the dump lock, then the ring's. 0, or -1
 * with err. */
int fk_snap_take(const char *why, uint32_t *id, struct fk_err *err);

/* The loop's timer: milliseconds until fk_snap_tick has work (-1: none
 * while sampling is off), and the work (interval and peak snapshots). */
int fk_snap_timeout_ms(void);
void fk_snap_tick(void);

/* The snapshots held and the bytes they take. */
void fk_snap_stats(size_t *n, size_t *bytes);

/* What serving the timeline of the ring now takes beyond the ring, counted
 * against the budget with it (FK_HOOK_TIMELINE_CELL a stack a snapshot). */
size_t fk_snap_timeline_bytes(void);

/* Serves snapshot id (base 0), or the growth from snapshot base to
 * snapshot id (or to the heap now when id is 0), in fmt (not raw); takes
 * the locks itself. 0, or -1 with err (FK_EUNSUPP: no such snapshot). */
int fk_snap_serve(uint32_t id, uint32_t base, int fmt, const struct fk_serve_opts *o,
		  char **out, size_t *len, size_t *maplen, struct fk_err *err);

/* Every snapshot as a series (fk_serve_series). 0, or -1 with err
 * (FK_EUNSUPP: no snapshot yet). */
int fk_snap_series(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
		   struct fk_err *err);

/* The series as JSON: each snapshot's id, time, reason, sampled heap and
 * figures, the peak's id, the ring's bytes and budget. */
void fk_snap_json(FILE *f);

/* The newest snapshot's "sampling" figure (bytes), or -1. */
int64_t fk_snap_sampling(void);

/* Frees every snapshot (the hook stops). */
void fk_snap_release(void);

/* In a forked child: what the parent's hook thread may have been changing
 * (the module cache, the delta windows; the snapshot ring) is left as it
 * is, never freed or read, and the child starts afresh. */
void fk_serve_atfork_child(void);
void fk_snap_atfork_child(void);

/* The module cache of the conversions (symbolize.h): freed (with its
 * modules' open files) by drop, made again by the next conversion; stats
 * fills *st (zeros without a cache). Both take fk_je_lock. */
struct fk_symcache_stats;
void fk_serve_cache_drop(void);
void fk_serve_cache_stats(struct fk_symcache_stats *st);

/* ---- serve_memo.c: what the last scrapes made, for the next ---- */
/* The stacks of the last dump (core/stackmemo.h), made on first use;
 * NULL with no budget (FLAMEKIT_CACHE_MB 0). */
struct fk_stackmemo *fk_memo_stacks(void);

/* The pprof encoder's memo (fk_pprof_memo), made on first use; NULL with
 * no budget. */
struct fk_pprof_memo *fk_memo_pprof(void);

/* The key of an answer in fmt to a request with o (NULL: the defaults)
 * of dump[0..len); 0 for one never kept. */
uint64_t fk_memo_key(const char *dump, size_t len, int fmt, const struct fk_serve_opts *o);

/* The pprof kept for key, or NULL. */
struct fk_pprof_body;
const struct fk_pprof_body *fk_memo_body(uint64_t key, size_t dump_len);

/* A malloc'd copy of the answer in fmt (not pprof) kept for key: 1, or 0
 * when none is kept (or out of memory). */
int fk_memo_bytes(uint64_t key, size_t dump_len, int fmt, char **out, size_t *len);

/* Keeps b (taken) or a copy of bytes[0..len) as the answer for key in
 * place of the format's last; one larger than a quarter of the budget is
 * not kept. */
void fk_memo_keep_body(uint64_t key, size_t dump_len, struct fk_pprof_body *b);
void fk_memo_keep_bytes(uint64_t key, size_t dump_len, int fmt, const char *bytes,
			size_t len);

/* Frees everything kept (with the module cache, fk_serve_cache_drop). */
void fk_memo_drop(void);
void fk_memo_atfork_child(void);

struct fk_memo_stats {
	size_t stacks, bytes;          /* stacks held; bytes of stacks and answers */
	uint64_t hits, misses;         /* answers given back, made */
	uint64_t stack_hits, stack_misses;
};
void fk_memo_stats(struct fk_memo_stats *st);

/* ---- serve_reply.c: one request and its answer, as routes see them ---- */
/* A request: its method, its path without the query, its Host for
 * messages ("HOST" when unusable), and its query parameters, which the
 * route table reads once into a struct fk_req (serve_req.h). */
struct fk_request {
	const char *method;        /* "GET", "HEAD" or "POST" */
	const char *path;
	const char *uri;           /* the whole target as sent: path and query */
	const char *host;
	/* Calls fn on every query parameter, in order, with its decoded key
	 * and value and their lengths (value NULL: the key came without '=');
	 * stops at the first fn that returns non-zero and returns that (an
	 * fk_each_fn). NULL: the request has no parameters. */
	int (*each)(void *tctx, int (*fn)(void *cls, const char *key, size_t klen,
					  const char *val, size_t vlen), void *cls);
	void *tctx;
};

struct fk_reply {
	unsigned status;
	const char *ctype;         /* static string; NULL: text/plain */
	const char *disposition;   /* Content-Disposition, static, or NULL */
	char *body;
	size_t len;
	size_t maplen;
	struct fk_body_src src;    /* read set: the body is streamed from it */
	double deadline;
	void (*finish)(void *ctx, struct fk_reply *r);
	void (*drop)(void *ctx);
	void *ctx;
	/* With finish and deadline: settled(ctx), asked on the loop each
	 * time it runs (and never after drop), sends the answer before the
	 * deadline once it returns 1 (the answers of workers, read on the
	 * loop, have come). NULL: the deadline alone. */
	int (*settled)(void *ctx);
	/* With finish: work(ctx) runs first on a thread of its own (blocking
	 * I/O to another process), finish(ctx, r) once it is done; deadline
	 * (default FK_HOOK_PROXY_SECONDS from now) bounds the wait with a
	 * 504. The thread shares the hook's descriptor table, is never
	 * sampled, and may take no lock the loop holds. */
	void (*work)(void *ctx);
};

/* Makes r a "MESSAGE\n" text/plain answer with status (replacing a body
 * it had). Out of memory leaves an empty body. */
void fk_reply_error(struct fk_reply *r, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A 200 answer of type ctype written through the stream returned (NULL,
 * with a 500 in r, when out of memory); fk_reply_close finishes it. */
FILE *fk_reply_open(struct fk_reply *r, const char *ctype);
void fk_reply_close(struct fk_reply *r, FILE *f);


/* ---- serve_params.c: a request's parameters, typed (serve_req.h) ---- */
struct fk_req;

/* ---- serve_waste.c: where the program's memory goes ---- */
/* GET /internal/heap/waste[?format=json|folded|flame]: jemalloc's
 * statistics less the hook's arena, each class's slab waste laid to the
 * sites of the live heap dump (core/waste.h). */
void fk_waste_route(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);

/* The route's formats, for its format parameter: json, folded, flame;
 * NULL past the last. */
const char *fk_waste_format_name(int i);

struct fk_jestats;
struct fk_waste_proc;
/* jemalloc's statistics of the program (every figure less the hook's
 * arena) into st (from fk_jestats_init), the process's figures and its
 * radix tree's leaves into pr, and, where not NULL, fk_arena_split's
 * figures into host and hook (one epoch refresh for all). large: the large
 * classes too, which the sites'
 * estimate reads and RSS's parts do not (a snapshot leaves them out:
 * ~700 mallctl calls fewer). Under fk_je_lock. 0, or -1 with err (out of
 * memory). */
int fk_waste_stats(struct fk_jestats *st, struct fk_waste_proc *pr, struct fk_arena_mem *host,
		   struct fk_arena_mem *hook, int large, struct fk_err *err);

/* ---- serve_routes.c: the endpoints, a table ---- */
/* Answers rq by the route table (404 for no such path, 405 for a method
 * the path does not take). */
void fk_routes_handle(const struct fk_request *rq, struct fk_reply *r);

/* ---- serve_settings.c: the settings routes ---- */
/* GET and POST /internal/heap/settings (route handlers). */
void fk_settings_get(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);
void fk_settings_post(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);

/* 503 with the sentence saying what to do when jemalloc cannot profile:
 * 1 when answered so, 0 when it can. */
int fk_settings_unavailable(struct fk_reply *r);

/* In a forked child: the lock of the reset rate, which the parent's hook
 * thread may have held, is made anew. */
void fk_routes_atfork_child(void);

/* ---- serve_http.c, serve_defer.c, serve_guard.c: the HTTP transport ---- */
/* Creates the libmicrohttpd daemon on the listening socket fd (taken over,
 * closed on failure), answering admitted requests with handler. External
 * polling with epoll: the loop thread drives it. worker: fd is a worker
 * process's private socket, where only the peers fk_group_peer_ok admits
 * are answered. One daemon at a time. NULL with err on failure. */
struct MHD_Daemon *fk_http_new(int fd, fk_handler_fn *handler, int worker, struct fk_err *err);

/* The descriptor the loop polls for finished off-loop work (-1: none);
 * fk_http_run drains it. */
int fk_http_work_fd(void);

/* In a forked child: forgets the parent's work pipe. */
void fk_http_atfork_child(void);

/* Whether libmicrohttpd panicked in the last run: the daemon is then
 * abandoned (fk_http_free closes only its listening socket) and the loop
 * makes a new one. */
int fk_http_broken(void);

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

/* ---- serve_peer.c: who is at the other end of a connection ---- */
enum fk_peer_kind {
	FK_PEER_UNKNOWN,           /* could not be told: treated as a stranger */
	FK_PEER_LOCAL,             /* a socket of this machine: uid is its owner */
	FK_PEER_REMOTE             /* another host: no user here */
};
struct fk_peer {
	enum fk_peer_kind kind;
	uid_t uid;
	uint64_t key;              /* the client, for per-client limits: its
				    * user, or its address; 0 when unknown */
};

/* Who is at the other end of the connected socket fd: SO_PEERCRED on a
 * unix socket; for a loopback TCP peer, the owner of its socket from the
 * kernel's socket diagnostics (netlink), else /proc/net/tcp or tcp6. */
void fk_peer_get(int fd, struct fk_peer *p);

/* The owner of the loopback TCP socket whose own end is peer and whose
 * other end is self (both AF_INET, or both AF_INET6): from netlink, else
 * (or with proc_only) from /proc/net/tcp or tcp6. 1 with *uid, 0 when no
 * such socket exists, -1 when neither can be read. */
int fk_peer_tcp(const struct sockaddr_storage *peer, const struct sockaddr_storage *self,
		int proc_only, uid_t *uid);

/* Finds, in buf[0..len) (whole lines of /proc/net/tcp or tcp6; a last
 * line without its newline is ignored), the socket whose local and
 * remote addresses read exactly local and remote (the kernel's
 * "0100007F:1F90" form). 1 with *uid set, or 0. */
int fk_peer_scan(const char *buf, size_t len, const char *local, const char *remote,
		 uid_t *uid);

/* Reads the kernel's answer to a sock_diag lookup, buf[0..len): 1 with
 * *uid the socket's owner, 0 for an error message (no such socket), -1
 * when it is neither. */
int fk_peer_parse_diag(const void *buf, size_t len, uid_t *uid);

/* Whether a local user may ask without the token: root, the program's
 * user (real or effective), or one FLAMEKIT_ALLOW names. */
int fk_guard_uid_ok(uid_t uid);

/* Checks one request from peer: its method, URL (urilen: the whole target
 * with its query), token, who is asking (peer NULL: admitted already by
 * the transport, a worker's socket), Host and where a browser sent it
 * from. Returns 0 to admit it, or an HTTP status with why[0..size) one
 * sentence. */
/* A request's headers however its transport holds them: get(ctx, name)
 * the value of header name (any case), NULL when absent; count(ctx,
 * name) how many times it came. */
struct fk_headers {
	const char *(*get)(void *ctx, const char *name);
	unsigned (*count)(void *ctx, const char *name);
	void *ctx;
};

/* fk_guard_check on headers hd, whatever the transport (a request the
 * program's own server hands over: serve_handle.c). */
unsigned fk_guard_admit(const struct fk_headers *hd, const struct fk_peer *peer,
			const char *method, const char *url, size_t urilen,
			char *why, size_t size);

/* fk_peer_get for a TCP connection given by its two ends (the peer's,
 * and this process's), as a program's own server knows them. */
void fk_peer_pair(const struct sockaddr_storage *peer, const struct sockaddr_storage *self,
		  struct fk_peer *p);

/* h, a Host header's value, when it is a plain host[:port]; else "HOST"
 * (for messages that quote it). */
const char *fk_host_for_msg(const char *h);

/* ---- serve_handle.c: a request the program's own server hands over ---- */

/* Answers h as the hook's own server would answer it on a connection:
 * its admission (fk_guard_admit, with h's peer), its limits on the URL
 * and its parameters, then the route table. A proxied answer (?pid= of
 * another process) is refused with 501: only the hook's own server
 * proxies. A delta comes back with a deadline: fk_serve_handle_finish
 * then makes its answer. */
void fk_serve_handle(const struct fk_handed *h, struct fk_handed_answer *a);
void fk_serve_handle_finish(struct fk_handed_answer *a);

unsigned fk_guard_check(struct MHD_Connection *c, const struct fk_peer *peer,
			const char *method, const char *url, size_t urilen,
			char *why, size_t size);

/* ---- serve_ask.c: requests to workers over HTTP ---- */
/* One question to a worker for fk_group_ask, and its answer. */
struct fk_ask {
	struct fk_member m;        /* in: whom to ask */
	unsigned status;           /* out: the answer's status; 0 none */
	char *body;                /* its body, malloc'd, NUL after len */
	size_t len;
	char err[256];             /* with status 0: why, a sentence */
};

/* Sends METHOD TARGET to every worker of asks[0..n) and reads each
 * answer, a head and a body of at most max bytes, asking at most
 * FK_HOOK_ASK_PARALLEL at once, all within seconds: one that does not
 * answer costs the others nothing. Blocking: call it from off-loop work
 * (struct fk_reply's work). */
void fk_group_ask(struct fk_ask *asks, size_t n, const char *method, const char *target,
		  double seconds, size_t max);

/* Sends METHOD TARGET to worker m and reads the head of its answer into h
 * within seconds: the body is then read by the source *src (its size
 * h->length), on the loop (serve_stream.c). 0, or -1 with err. Blocking:
 * call it from off-loop work. */
int fk_group_open(const struct fk_member *m, const char *method, const char *target,
		  double seconds, struct fk_answer_head *h, struct fk_body_src *src,
		  struct fk_err *err);

/* ---- serve_procs.c: routes over the program's processes ---- */
/* Answers rq for process q->pid (not this one) through its socket. */
void fk_procs_proxy(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);

/* GET /internal/heap/processes. */
void fk_procs_list(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);

/* POST /internal/heap/settings?pid=all: self is this process's own
 * answer (taken), the workers are asked at once. */
void fk_procs_all(const struct fk_request *rq, struct fk_reply *self, struct fk_reply *r);

/* ---- serve_stream.c: a streamed body on the transport ---- */
/* Seconds a streamed body may wait for its source's next bytes. */
#define FK_HOOK_STREAM_IDLE_SECONDS 30

/* Makes the set the loop polls for the transport's work (fk_http_work_fd):
 * wake_fd (the work pipe's reading end) and the sockets of streamed
 * bodies that wait. The set's fd, or -1 (streams then cannot wait: a
 * source with nothing is ended). */
int fk_stream_init(int wake_fd);

/* A response on connection c whose body is read
 * from src (taken, freed with the response): while src has nothing, the
 * connection is suspended and src->fd watched. NULL when out of memory
 * (src is then freed). */
struct MHD_Response *fk_stream_response(struct MHD_Connection *c, struct fk_body_src *src);

/* Resumes the connections whose source became readable or whose wait is
 * over; their count (the caller runs the daemon again when any). */
int fk_stream_run(void);

/* Milliseconds until a wait is over (-1: none waits). */
int fk_stream_timeout(void);

/* Ends every stream (the daemon stops): each waiting connection is
 * resumed to be cut; their count. */
int fk_stream_stop(void);

/* The daemon was abandoned (libmicrohttpd panicked): forgets its waiting
 * streams without resuming them, closing their sources. */
void fk_stream_forget(void);

/* Frees src when it was never handed to a response (NULL read: no-op). */
void fk_stream_drop(struct fk_body_src *src);

/* In a forked child: forgets the parent's set. */
void fk_stream_atfork_child(void);

#endif
