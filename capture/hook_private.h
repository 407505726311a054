/* SPDX-License-Identifier: MIT */
/* The private interface between the hook's two libraries (docs/hook.md,
 * "Two libraries"): what the serving half (libflamekit-hook-serve.so.0,
 * serve_int.h) calls in the resident half (libflamekit-hook.so.0,
 * hook_int.h) — exactly the functions and data of capture/hook.map's
 * FLAMEKIT_HOOK_PRIVATE_0, which tests/layers/hook-private.t checks —
 * the types and limits both use, and the one table the resident half
 * calls the serving half through (struct fk_serve_ops). No API: nothing
 * here is for programs (flamekit_hook.h is). */
#ifndef FK_HOOK_PRIVATE_H
#define FK_HOOK_PRIVATE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "err.h"
#include "limits.h"

/* ---- hook_find.c / hook_jemalloc.c: finding and driving jemalloc ---- */
typedef int (*fk_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

enum fk_je_avail {
	FK_JE_OK,                  /* profiling compiled in and started */
	FK_JE_NOTFOUND,            /* no mallctl in the process */
	FK_JE_NOTCOMPILED,         /* jemalloc built without --enable-prof */
	FK_JE_NOTSTARTED,          /* started without prof:true */
	FK_JE_FAILED,              /* mallctl("config.prof") itself failed */
	FK_JE_ELSEWHERE,           /* the only jemalloc found serves none of the
				      program's allocations: the executable's
				      own malloc does */
};

/* One jemalloc found in the process. */
struct fk_je_copy {
	fk_mallctl_fn ctl;
	char symbol[64];           /* "mallctl", "je_mallctl", "_rjem_mallctl" */
	char module[512];          /* the object defining it */
	const char *source;        /* "dynamic" (exported), ".symtab", ".dynsym",
				      ".gnu_debugdata", "debug file" or "api" */
	int in_exe;                /* defined in the executable */
	int serves_malloc;         /* a probe malloc moved its thread.allocated */
	enum fk_je_avail state;
	int err;                   /* errno of a failed call (FK_JE_FAILED) */
	char version[64];          /* its "version", or "" */
};

/* Finds jemalloc once (fk_je_set_api or FLAMEKIT_MALLCTL first, then
 * mallctl, je_mallctl, _rjem_mallctl, exported or in symbol tables), picks
 * the copy serving the program and reports whether profiling can be used;
 * *why (may be NULL) gets a sentence saying what to do when it cannot. */
enum fk_je_avail fk_je_check(const char **why);

/* The chosen copy into *c, the number of copies found into *ncopies and,
 * when there are several, a sentence on the choice into *note (else "").
 * 0, or -1 when none was found. */
int fk_je_chosen(struct fk_je_copy *c, size_t *ncopies, const char **note);

/* What a pprof lacks when jemalloc runs without prof_accum, and the
 * variable and value that give it to the chosen jemalloc: a sentence,
 * valid until the next fk_je_set_api ("" before any jemalloc is found). */
const char *fk_je_no_accum(void);

/* When FLAMEKIT_MALLCTL chose a copy that holds almost nothing while a
 * copy it left out holds the program's memory (at least
 * FK_HOOK_IDLE_HELD bytes and FK_HOOK_IDLE_RATIO times as much): 1 with a
 * sentence naming both into buf, else 0. */
int fk_je_idle(char *buf, size_t size);

/* Reads prof.active into *active. 0, or -1 with err. */
int fk_je_get_active(int *active, struct fk_err *err);

/* Sets prof.active; when lg_sample >= 0 first resets the profile at that
 * rate (prof.reset). 0, or -1 with err. */
int fk_je_set_active(int active, int lg_sample, struct fk_err *err);

/* prof.lg_sample, or -1 when unknown. */
int fk_je_lg_sample(void);

/* opt.prof_accum (jemalloc keeps cumulative counts: the alloc_* values),
 * 0 when off or unknown. */
int fk_je_prof_accum(void);

/* When jemalloc's prof_bt_max (5.3.1) lets stacks grow deeper than the
 * FK_MAX_DEPTH frames the readers keep: 1 with a sentence saying what it
 * needs into buf, else 0. */
int fk_je_bt_problem(char *buf, size_t size);

/* Whether a dump now lists any stack: 1, 0, or -1 when none could be
 * taken. With prof_accum a stack whose objects were all freed stays
 * listed, so 0 means nothing was sampled since start or the last reset.
 * Takes fk_je_lock. */
int fk_je_holds_stacks(void);

/* Sets thread.prof.active of the calling thread; *old (may be NULL) gets
 * the previous value. Returns 0, or -1 when jemalloc cannot do it. */
int fk_je_thread_active(int active, int *old);

/* mallctl(name, ...) through the chosen copy, whatever it can do: 0 or
 * the error number it returns (ENOENT when no jemalloc was found). */
int fk_je_ctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

/* Writes a heap dump through prof.dump into a memfd and maps it: *data
 * holds *len bytes and a NUL after them, in a private mapping of *maplen
 * bytes (no copy: the memfd's pages are mapped). Release it with
 * fk_hook_buf_release. Works while sampling is off too (what was sampled
 * stays in jemalloc). The caller holds fk_je_lock (one
 * dump and its conversion at a time in the process). 0, or -1 with err. */
int fk_je_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err);

/* Maps what was written into the file fd (a memfd) as fk_je_dump hands
 * its dump over: *data, *len, a NUL after them, *maplen. 0, or -1 with
 * err (an empty or oversized file). */
int fk_je_map_fd(int fd, char **data, size_t *len, size_t *maplen, struct fk_err *err);

/* Releases a buffer: munmap of maplen bytes, or free() when maplen is 0. */
void fk_hook_buf_release(char *data, size_t maplen);

/* The process-wide dump lock. */
void fk_je_lock(void);
void fk_je_unlock(void);

/* Monotonic seconds. */
double fk_now(void);

/* ---- hook_proc.c: facts about a process, from /proc ---- */
struct fk_proc {
	pid_t pid, ppid;
	char state;                /* R, S, D, T (stopped), t (traced), Z, ... */
	uint64_t start;            /* start time, clock ticks after boot */
};

/* Reads /proc/PID/stat into p. 0, or -1 when there is no such process. */
int fk_proc_info(pid_t pid, struct fk_proc *p);

/* A start time as Unix seconds (-1: unknown). */
double fk_proc_start_epoch(uint64_t start);

/* The command line of pid, arguments joined by spaces, into buf; its
 * length (0: unknown). */
size_t fk_proc_cmdline(pid_t pid, char *buf, size_t size);

/* A line of /proc/net/tcp or tcp6: its first fields ("sl", local address,
 * remote address, state, ..., uid at 7, timeout, inode at 9), each
 * f[i][0..len[i]). */
#define FK_TCP_FIELDS 10
struct fk_tcp_line {
	const char *f[FK_TCP_FIELDS];
	size_t len[FK_TCP_FIELDS];
};
typedef int fk_tcp_match_fn(const struct fk_tcp_line *l, void *ctx);

/* Finds, in buf[0..len) (whole lines of /proc/net/tcp or tcp6; a last
 * line without its newline is ignored), the first socket match() accepts.
 * 1 with *uid its owner, or 0. */
int fk_proc_tcp_scan(const char *buf, size_t len, fk_tcp_match_fn *match, void *ctx,
		     uid_t *uid);

/* The same over /proc/net/tcp (v6: tcp6), read a few pages at a time: 1
 * with *uid, 0 when no socket matches, -1 when it cannot be read. */
int fk_proc_tcp(int v6, fk_tcp_match_fn *match, void *ctx, uid_t *uid);

/* ---- hook_unwind.c: the sampling backtrace ---- */
/* Which backtrace samples take: "flamekit", or "jemalloc: WHY". Static
 * storage, set once by fk_unwind_install. */
const char *fk_unwind_name(void);

/* ---- hook_recent.c: allocation lifetimes (experimental.prof_recent) ---- */
/* The record's bound as fk_recent_install set or found it (-1 unknown)
 * into *max, and why there is no record ("" when there is) into *why. */
void fk_recent_bound(long *max, const char **why);

/* ---- hook_log.c: the hook's one line on the host's stderr ---- */
/* Writes "flamekit-hook: MESSAGE\n" in one write to the host's current
 * standard error, from any thread (the hook's own borrows the host's
 * fd 2 for the write). */
void fk_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread is the hook's (hook_loop.c marks it; private_fds:
 * its descriptor table is its own), and whether the caller is such a
 * thread: the module cache is used only there, since its files are open
 * in that table. */
void fk_self_mark(int private_fds);
int fk_self_is_hook(void);
int fk_self_private_fds(void);

/* ---- hook_arena.c: the hook's own memory, in an arena of its own ---- */
/* Binds the calling thread (the hook's own) to the hook's arena, created
 * on first use, with its thread cache off, so that nothing it allocates
 * lands in the host's arenas or in a cache the host's threads share. The
 * arena exists only when the chosen jemalloc serves malloc (otherwise the
 * hook's allocations are not in that jemalloc at all). Call once from the
 * thread's start, after fk_je_check. 0, or -1 when there is no arena (the
 * thread is left as it was). */
int fk_arena_enter_thread(void);

/* jemalloc's figures as one epoch gives them (bytes, -1 unknown). */
struct fk_arena_mem {
	int64_t allocated, active, resident, mapped, retained, metadata;
};

/* After one epoch refresh: the hook's arena's own figures into *hook (all
 * -1 without an arena) and jemalloc's totals less them into *host (the
 * program's figures; its allocated adds the live sampled objects jemalloc
 * 5.3.1 leaves out, fk_sampling_uncounted). Either may be NULL. Returns the arena's index, or
 * -1 when there is none. */
int fk_arena_split(struct fk_arena_mem *host, struct fk_arena_mem *hook);

/* Why the hook has no arena into buf ("" when it has one, or before the
 * hook's thread asked for it): a sentence for the settings. */
void fk_arena_why(char *buf, size_t size);

/* ---- hook_sampling.c: what sampling itself costs ---- */
/* Whether jemalloc counts its live sampled objects per size class
 * (opt.prof_stats), so that fk_sampling_cost is exact. */
int fk_sampling_exact(void);

/* The bytes stats.allocated counts beyond the size classes of the live
 * sampled small objects (struct fk_samp_cost's allocated), from
 * prof.stats.bins.<i>.live; -1 without prof_stats. */
int64_t fk_sampling_cost(void);

/* fk_sampling_cost estimated from a dump's raw in-use counts of n stacks
 * (each stack's objects taken to be of its mean size; objects sampled
 * before the last prof.reset are not in a dump, so they are missed), and
 * kept for fk_sampling_uncounted; -1 when the size classes are unknown. */
int64_t fk_sampling_estimate(const int64_t *objs, const int64_t *bytes, size_t n);

/* ---- hook_addr.c: listen addresses (also used by fetch.c) ---- */
/* Whether the Host header value h[0..n) names a loopback address
 * ("localhost", "127.0.0.1", "[::1]", each with an optional ":port"). */
int fk_host_is_loopback(const char *h, size_t n);

/* ---- serve_origin.c: what a flame page says of its profile ---- */
struct fk_life_info;

/* ---- serve_profile.c: a dump in the requested format ---- */
enum fk_fmt {
	FK_OUT_PPROF, FK_OUT_FLAME, FK_OUT_FOLDED, FK_OUT_RAW, FK_OUT_SYMBOLIZED,
	FK_OUT_NFMT
};

/* Options of a profile: the flame graph's (render-flame's main options)
 * and the pprof's. */
struct fk_serve_opts {
	const char *title, *colors;
	double minwidth;           /* < 0: the renderer's default */
	int minwidth_pct;          /* minwidth is a percentage of the total */
	int inverted;              /* 1 root on top, 0 root at the bottom, -1 the default */
	int allocs;                /* pprof: Go's allocs profile (default type
				      alloc_space) rather than its heap profile */
	size_t max_samples;        /* pprof: at most this many samples, 0 = no limit */
	int lines;                 /* flame and folded: frames "NAME (FILE:LINE)"
				      where the line is known (to-folded --lines) */
	int sample_type;           /* folded: 0 inuse_space (the default),
				      1 inuse_objects, 2 alloc_space,
				      3 alloc_objects (fk_sample_type_name) */
	/* A field added here that changes an answer goes into fk_memo_key. */
};

/* The pprof sample limit of every request that gives none
 * (FLAMEKIT_MAX_SAMPLES' default): Pyroscope's default ingest limit, so
 * that a scraper's profiles are never refused for their size. */
#define FK_HOOK_MAX_SAMPLES 16000

struct fk_profile;

/* ---- serve_snap.c: snapshots over time ---- */
/* The defaults of the seconds between interval snapshots
 * (FLAMEKIT_SNAPSHOT_S; 0: none) and the ring's memory budget
 * (FLAMEKIT_SNAPSHOT_MB). */
#define FK_HOOK_SNAPSHOT_S 60
#define FK_HOOK_SNAPSHOT_MB 64
/* The shortest FLAMEKIT_SNAPSHOT_S but 0: a snapshot of a 16k-stack heap
 * takes 90 ms of the hook's thread (bench/README.md, "Snapshots"), so
 * every half second is already a sixth of a core. */
#define FK_HOOK_SNAPSHOT_S_MIN 0.5
/* What serving the timeline takes for each stack of each snapshot, and
 * counts against FLAMEKIT_SNAPSHOT_MB with the ring itself: the series'
 * dense values (8 bytes), their row in the folded accumulator (8) and in
 * the page's frame table (8). Measured: one timeline GET of 150 snapshots
 * of 4112 stacks took 12 MB more than one of 20, 22 bytes a cell
 * (bench/README.md, "The timeline's memory"). */
#define FK_HOOK_TIMELINE_CELL 24
/* Snapshots in the ring at most: the columns a series holds. */
#define FK_HOOK_MAX_SNAPSHOTS FK_MAX_COLUMNS
/* How often the hook's thread reads stats.allocated while sampling is on
 * (one mallctl: microseconds), and by how much it must pass the highest
 * snapshot's for a peak snapshot. */
#define FK_HOOK_PEAK_POLL_MS 250
/* lg_sample changes (each a prof.reset, which leaves jemalloc's metadata
 * larger for good): this many at once, then one every FK_HOOK_RESET_S
 * seconds; more are 429 (serve_routes.c). */
#define FK_HOOK_RESET_BURST 16
#define FK_HOOK_RESET_S 10
/* A snapshot failure that repeats is told once, then as a count at most
 * this often (seconds). */
#define FK_HOOK_TELL_S 60
#define FK_HOOK_PEAK_STEP 0.10

/* ---- serve_memo.c: what the last scrapes made, for the next ---- */
/* Why a profile is not served when nothing can have been sampled and
 * jemalloc holds no sample. */
#define FK_HOOK_NOTHING_SAMPLED "nothing has been sampled since the program started " \
	"or since the last reset: turn sampling on, let the program run, then fetch again"

/* ---- serve_reply.c: one request and its answer, as routes see them ---- */
/* An answer: the body is owned by the reply (malloc'd, or a mapping of
 * maplen bytes: fk_hook_buf_release). A handler that sets deadline (fk_now()
 * seconds) defers it: the transport holds the request and at that time
 * calls finish(ctx, r) on a fresh reply, or drop(ctx) when the request or
 * the server ends first. */
/* A body sent as it is read (a worker's answer proxied), in place of a
 * buffer (serve_stream.c). read(cls, buf, max) copies up to max bytes into
 * buf and returns their count; 0 when none is there yet (the transport
 * then waits until fd is readable, at most FK_HOOK_STREAM_IDLE_SECONDS);
 * -1 at the body's end; -2 when it broke (the client's connection is
 * cut, so it cannot take a short body for a whole one). It runs on the
 * loop and never blocks. free(cls) once, when the transport is done. */
struct fk_body_src {
	ssize_t (*read)(void *cls, char *buf, size_t max);
	void (*free)(void *cls);
	void *cls;
	int fd;
	uint64_t size;             /* the body's length; FK_ANSWER_NO_LENGTH: unknown */
};

/* ---- serve_params.c: a request's parameters (serve_req.h) ---- */
/* Largest ?pid= taken as a process id (pid_t's): a larger number is not
 * one (400); a smaller one that is no process of the program is 404. */
#define FK_HOOK_PID_MAX 2147483647

/* ---- serve_http.c / serve_guard.c: the HTTP transport ---- */
struct MHD_Daemon;
struct MHD_Connection;

/* ---- serve_peer.c: who is at the other end of a connection ---- */
/* Request admission (serve_guard.c), as fk_env_get()->guard sets it. */

/* Largest request body accepted (POST bodies are ignored). */
#define FK_HOOK_MAX_BODY 4096
/* Longest URL accepted. */
#define FK_HOOK_MAX_URL 2048
/* Connections served at once; more wait in the listen backlog. */
#define FK_HOOK_MAX_CONN 64
/* The settings report an idle allocator when the chosen jemalloc holds
 * less than IDLE_HELD bytes while the process's RSS passes IDLE_RSS. */
#define FK_HOOK_IDLE_HELD (1u << 20)
#define FK_HOOK_IDLE_RSS (256u << 20)
#define FK_HOOK_IDLE_RATIO 4
/* Longest ?seconds=N of a delta profile. */
#define FK_HOOK_MAX_SECONDS 3600

/* ---- hook_loop.c: the hook's one thread ---- */
/* The program's address as the serving loop was given it ("127.0.0.1:6060",
 * "unix:/path"; a worker's is its listener's, which it may take over), or
 * NULL when no loop serves. */
const char *fk_loop_addr(void);

struct fk_loop;                /* one loop thread, hook_loop.c */

/* ---- hook_answer.c: what a worker says, read as untrusted bytes ---- */
/* The head of a worker's HTTP answer: at most FK_ANSWER_MAX_HEAD bytes. */
#define FK_ANSWER_MAX_HEAD 8192
#define FK_ANSWER_NO_LENGTH UINT64_MAX
struct fk_answer_head {
	unsigned status;           /* 100 to 599 */
	const char *ctype;         /* one the hook sends (static), else
				      application/octet-stream */
	const char *disposition;   /* one the hook sends (static), or NULL */
	uint64_t length;           /* Content-Length, or FK_ANSWER_NO_LENGTH */
	size_t head_len;           /* bytes of the head, blank line included */
};

/* What a process says of its sampling in the processes list: prof.active
 * and the jemalloc it chose, as its settings say them. */
struct fk_status {
	int enabled;               /* prof.active (0 when not profiling) */
	char version[64];          /* the chosen jemalloc's "version", or "" */
	char symbol[64];           /* its mallctl's name; "" when none was found */
	char module[512];          /* the object that defines it */
};

/* Reads the head at the start of buf[0..n) into h: 1; 0 when it is not
 * whole yet (n below FK_ANSWER_MAX_HEAD); -1 with *why a static sentence
 * when it is not an HTTP/1.x answer's head or is too long. */
int fk_answer_head(const char *buf, size_t n, struct fk_answer_head *h, const char **why);

/* ---- hook_group.c: the program's processes ---- */
struct pollfd;
struct fk_addr;

/* The group's name (the middle of its sockets' names). */
const char *fk_group_name(void);

/* Whether the peer of the connected socket fd may ask this process
 * (SO_PEERCRED: the same user, root, or the user the group began as). */
int fk_group_peer_ok(int fd);

/* The pid of the process serving the address, as far as this one knows:
 * itself when it listens, the registry's peer for a worker; 0 unknown. */
pid_t fk_group_listener(void);

/* A registered worker, as the listener knows it. */
struct fk_member {
	pid_t pid;
	char name[48];             /* its socket: @flamekit-hook/GROUP/NAME */
	int taken;                 /* NAME is not its pid: that one was taken */
	long long taken_uid, taken_pid;  /* by whom; -1 unknown */
};

/* Listener (on the loop): whether pid is a registered worker, and its
 * entry into *m (m may be NULL); the registered workers into out. */
int fk_group_is_worker(pid_t pid);
int fk_group_member(pid_t pid, struct fk_member *m);
size_t fk_group_workers(struct fk_member *out, size_t max);

/* Connects to NAME of the group without blocking (a unix socket connects
 * at once, or fails with EAGAIN when its queue is full); the peer's
 * credentials into *c. The fd (non-blocking), or -1 with errno. */
struct ucred;
int fk_group_connect(const char *name, struct ucred *c);

/* This process's status, as its answer to the listener's question says
 * it (the list's entry of each process). */
void fk_group_own_status(struct fk_status *st);

/* Listener (on the loop): asks worker pid, with one byte on its registry
 * connection, for its status, unless the last question is still
 * unanswered (one at a time a worker); *q gets the number of the answer
 * that will say it. 0, or -1 with errno (ESRCH: not a registered worker;
 * EAGAIN: its connection is full). */
int fk_group_question(pid_t pid, unsigned *q);

/* Listener (on the loop): worker pid's answer number q (or a later one)
 * into *st: 1; 2 when that answer was malformed; 0 while it has not come;
 * -1 when pid is no longer registered (its connection ended). */
int fk_group_answer(pid_t pid, unsigned q, struct fk_status *st);

/* Workers a listener keeps at most (a pre-fork pool). */
#define FK_HOOK_MAX_WORKERS 1024
/* Milliseconds a forked child waits before it makes its socket: a child
 * that execs or exits at once (a shell-out) costs nothing more. */
#define FK_HOOK_WORKER_DELAY_MS 100
/* Seconds a proxied request may take until its answer's head. */
#define FK_HOOK_PROXY_SECONDS 60
/* Seconds every worker together has to answer pid=all (a settings change
 * answers at once unless its hook thread is busy with a conversion): a
 * worker stopped (SIGSTOP, a debugger) costs the request that long, not
 * each time. */
#define FK_HOOK_ASK_SECONDS 10
/* Seconds the workers have to answer the processes list's question,
 * which answers within 2 s whatever its workers do. */
#define FK_HOOK_LIST_SECONDS 1.5
/* Workers asked at once by pid=all. */
#define FK_HOOK_ASK_PARALLEL 64
/* Largest answer of a worker to pid=all (a settings object, about 2
 * KiB): read into memory, so small. */
#define FK_HOOK_MAX_ASK_ANSWER (64 << 10)
/* Largest body a worker may send through the listener: streamed, never
 * held; past it the client's connection is cut. */
#define FK_HOOK_MAX_PROXY (1ULL << 30)

/* ---- serve_stream.c: a streamed body on the transport ---- */
struct MHD_Response;
struct MHD_Connection;

/* ---- hook_state.c: the sampling state, carried across exec ---- */
/* Records that sampling was turned on or off (reset: the profile was reset
 * through prof.reset, which forgets every sample and restarts the clock). */
void fk_state_note_active(int active, int reset);

/* fk_now() when sampling was turned on (or reset while on), or -1. */
double fk_state_active_since(void);

/* Whether anything can have been sampled since start or the last reset
 * (sampling turned on by the hook, or found on). */
int fk_state_sampled(void);

/* Counts a dump served, and reads the count. */
void fk_state_note_dump(void);
unsigned long fk_state_dumps(void);

/* Records the settings a request or the API set (lg_sample -1: unchanged). */
void fk_state_save(int enabled, int lg_sample);

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
/* Of those, held by one client at once (a user, or a remote address), so
 * that no one client can keep the others' scrapes out. */
#define FK_HOOK_MAX_DEFERRED_CLIENT 4
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
/* Megabytes the module cache may hold by default (FLAMEKIT_CACHE_MB): a
 * large C++ program's modules (libstdc++, a 100 MB binary with DWARF)
 * take tens of megabytes once read; past this the least recently used go. */
#define FK_HOOK_CACHE_MB 64
/* The most FLAMEKIT_CACHE_MB accepts (1 TiB): larger is a typo, refused
 * like any bad value (hook_env.c). */
#define FK_HOOK_CACHE_MB_MAX (1024 * 1024)

/* ---- hook_env.c: the settings (the table and their reading: hook_env.h) ---- */
/* Users FLAMEKIT_ALLOW may name besides the program's own and root. */
#define FK_HOOK_MAX_ALLOW 32
/* The longest FLAMEKIT_TOKEN, in bytes. */
#define FK_HOOK_TOKEN_MAX 255

/* Request admission, from the settings and the address (serve_guard.c). */
struct fk_guard {
	int remote;                /* non-loopback clients and Host allowed */
	char token[FK_HOOK_TOKEN_MAX + 1];  /* required bearer token, "" = none */
	uid_t allow[FK_HOOK_MAX_ALLOW];     /* FLAMEKIT_ALLOW's users */
	unsigned nallow;
};

/* FLAMEKIT_UNWIND's values. */
enum fk_unwind_want {
	FK_UNWIND_FLAMEKIT,        /* the hook's backtrace (the default) */
	FK_UNWIND_JEMALLOC,        /* jemalloc's own */
	FK_UNWIND_OTHER,           /* another word: the hook's, and one line */
};

/* The settings. Written only by hook_env.c: the first part when the
 * library loads (fk_env_load, from the constructor), the second by every
 * fk_hook_start before the server's thread starts (fk_env_start); read
 * everywhere else through fk_env_get. An unset or empty variable leaves
 * the default. */
struct fk_env {
	/* -- read when the library loads -- */
	char http[512];            /* FLAMEKIT_HTTP, "" when unset */
	pid_t http_owner;          /* FLAMEKIT_HTTP_OWNER, 0 unset or not a pid */
	int dump_signal;           /* FLAMEKIT_DUMP_SIGNAL's number, 0 unset */
	char dump_dir[4000];       /* FLAMEKIT_DUMP_DIR, "." by default */
	char at_exit[4096];        /* FLAMEKIT_AT_EXIT made absolute, "" unset */
	int at_exit_each;          /* it holds %p: every process writes one */
	pid_t at_exit_owner;       /* FLAMEKIT_AT_EXIT_OWNER, 0 unset */
	char mallctl[80];          /* FLAMEKIT_MALLCTL, "" unset */
	enum fk_unwind_want unwind;/* FLAMEKIT_UNWIND */
	char unwind_text[48];      /* its value, for the line another word gives */
	char tmpdir[256];          /* TMPDIR (not ours), "" unset or longer */
	/* -- read by each fk_hook_start (a field added here is copied by
	 * fk_env_start's last lines too) -- */
	size_t max_samples;        /* FLAMEKIT_MAX_SAMPLES; 0 no limit */
	double snapshot_s;         /* FLAMEKIT_SNAPSHOT_S; 0 no interval snapshots */
	size_t snapshot_bytes;     /* FLAMEKIT_SNAPSHOT_MB, in bytes */
	size_t cache_mb;           /* FLAMEKIT_CACHE_MB; 0 no cache */
	long recent;               /* FLAMEKIT_RECENT; -1 not given (MALLOC_CONF's
				      prof_recent_alloc_max, else FK_HOOK_RECENT) */
	int allow_remote;          /* FLAMEKIT_HTTP_ALLOW_REMOTE=1 */
	struct fk_guard guard;     /* FLAMEKIT_TOKEN, FLAMEKIT_ALLOW, remote */
};

/* The settings (never NULL; the defaults until fk_env_load ran). */
const struct fk_env *fk_env_get(void);

/* ---- hook_serve.c / serve_ops.c: the serving half, loaded on first use ----
 *
 * The hook is two libraries. libflamekit-hook.so (the resident half) finds
 * jemalloc, listens, samples, takes the dump signal and forks with the
 * host; it needs nothing but libc. libflamekit-hook-serve.so.0 (the
 * serving half, beside it) holds HTTP (libmicrohttpd and its GnuTLS), the
 * symbolizer (libdw), the encoders and the renderer (libxml2, ICU): the
 * resident half dlopens it on the hook's thread when a connection first
 * arrives, when sampling is on (snapshots), or when a dump is asked for,
 * so an idle host maps none of them. The serving half calls the resident
 * half's functions directly (its private symbol version, hook.map); the
 * resident half calls the serving half through this table only. */
/* What answers a request (the route table's dispatcher). */
struct fk_request;
struct fk_reply;
typedef void fk_handler_fn(const struct fk_request *rq, struct fk_reply *r);
struct fk_profile;
struct fk_handed;
struct fk_handed_answer;
struct fk_serve_ops {
	const char *version;       /* FK_VERSION of the build: both halves agree */
	fk_handler_fn *handler;    /* fk_routes_handle */
	struct MHD_Daemon *(*http_new)(int fd, fk_handler_fn *handler, int worker,
				       struct fk_err *err);
	int (*http_poll_fd)(struct MHD_Daemon *d);
	void (*http_run)(struct MHD_Daemon *d);
	int (*http_timeout)(struct MHD_Daemon *d);
	int (*http_work_fd)(void);
	int (*http_broken)(void);
	void (*http_quit)(void);
	void (*http_free)(struct MHD_Daemon *d);
	int (*snap_timeout_ms)(void);
	void (*snap_tick)(void);
	void (*snap_release)(void);
	void (*cache_drop)(void);
	void (*atfork_child)(void);     /* in a forked child: forget the
					   parent's state */
	int (*fmt_parse)(const char *name);
	int (*produce)(int fmt, const struct fk_serve_opts *o, char **out,
		       size_t *len, size_t *maplen, struct fk_err *err);
	int (*find_func)(const char *path, const char *const *names, size_t n,
			 uint64_t *vaddr, const char **table, struct fk_err *err);
	/* fk_serve_handle and fk_serve_handle_finish (serve_handle.c): a
	 * request the program's own server hands over (fk_hook_handle). */
	void (*handle)(const struct fk_handed *h, struct fk_handed_answer *a);
	void (*handle_finish)(struct fk_handed_answer *a);
};

/* A request the program's own server hands over (fk_hook_handle): who
 * sent it, in the terms of flamekit_hook.h's struct fk_hook_peer. */
enum fk_handed_peer {
	FK_HANDED_UNKNOWN,         /* nothing said: a stranger, as on a socket */
	FK_HANDED_VOUCHED,         /* the program admitted its client itself */
	FK_HANDED_TCP,             /* the connection's two ends */
	FK_HANDED_UID              /* the user the program found (SO_PEERCRED) */
};
struct fk_handed {
	const char *method;
	const char *target;        /* path and query, as sent */
	const char *const *headers;/* name, value, name, value... */
	size_t nheaders;           /* pairs */
	enum fk_handed_peer peer;
	const char *remote, *local;/* FK_HANDED_TCP: numeric "ADDR:PORT" each */
	uid_t uid;                 /* FK_HANDED_UID */
};

/* Its answer. body is malloc'd in the hook's arena, or a mapping of
 * maplen bytes (fk_hook_buf_release); ctype and disposition are static.
 * deadline > 0: a delta whose end is due then (fk_now() seconds): the
 * caller waits, then calls handle_finish, which replaces the answer. */
struct fk_handed_answer {
	unsigned status;
	const char *ctype;
	const char *disposition;
	char *body;
	size_t len, maplen;
	double deadline;
	void *pending;             /* the serving half's, until handle_finish */
};

/* ---- hook_atexit.c: FLAMEKIT_AT_EXIT, the heap at exit ---- */
#define FK_HOOK_STR_(x) #x
#define FK_HOOK_STR(x) FK_HOOK_STR_(x)

#endif
