/* SPDX-License-Identifier: MIT */
/* Declarations shared by the files of libflamekit-hook (capture/). */
#ifndef FK_HOOK_INT_H
#define FK_HOOK_INT_H

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

/* Copies of jemalloc told apart in one process. */
#define FK_HOOK_MAX_COPIES 8

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

/* Finds the mallctl functions named names[0..n) in the process: exported
 * ones, then those of the ELF symbol tables of every loaded object but
 * this library, executable first; at most max copies into out, one per
 * function. Returns the count. Reads files; call it from the hook's work,
 * never from a signal handler. */
size_t fk_find_jemalloc(const char *const *names, size_t n,
			struct fk_je_copy *out, size_t max);

/* The malloc_conf a shared jemalloc reads: the first definition of the
 * symbol in the process's lookup order (dlsym), its object into module
 * and its value (bounded, "" when NULL) into value. Returns 1 when that
 * definition is this library's own, 0 when another object's, -1 when
 * there is none. */
int fk_find_conf(char *module, size_t msize, char *value, size_t vsize);

/* What the executable holds of an allocator: bit 1 when the process's
 * malloc is defined there (linked in statically), bit 2 when its file
 * carries jemalloc's messages ("<jemalloc>:"), bit 4 when also the
 * variable name "_RJEM_MALLOC_CONF" (a _rjem_ prefixed build). Its path
 * into exe. Reads the file. */
#define FK_FIND_OWN_MALLOC 1
#define FK_FIND_HAS_JEMALLOC 2
#define FK_FIND_RJEM 4
int fk_find_exe_alloc(char *exe, size_t size);

/* Finds jemalloc once (fk_je_set_api or FLAMEKIT_MALLCTL first, then
 * mallctl, je_mallctl, _rjem_mallctl, exported or in symbol tables), picks
 * the copy serving the program and reports whether profiling can be used;
 * *why (may be NULL) gets a sentence saying what to do when it cannot. */
enum fk_je_avail fk_je_check(const char **why);

/* Makes fn the mallctl to use from now on (fk_hook_set_mallctl). 0, or -1
 * with err when fn is NULL or does not answer as a mallctl. */
int fk_je_set_api(fk_mallctl_fn fn, struct fk_err *err);

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

/* fork handling: phase 0 (prepare) takes the short lock of what was found
 * (never the dump lock, which the hook's thread holds across a dump and
 * a conversion: a fork never waits for those), 1 (parent) releases it, 2
 * (child) releases it and makes the dump lock anew: its holder, if any,
 * is a thread the child does not have, and what it guarded is left. */
void fk_je_atfork(int phase);

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

/* The start time of pid in clock ticks after boot (0: unknown): with the
 * pid, what tells a process from a later one that reuses its pid. */
uint64_t fk_proc_start(pid_t pid);

/* A start time as Unix seconds (-1: unknown). */
double fk_proc_start_epoch(uint64_t start);

/* The command line of pid, arguments joined by spaces, into buf; its
 * length (0: unknown). */
size_t fk_proc_cmdline(pid_t pid, char *buf, size_t size);

/* A line of /proc/net/tcp or tcp6: its first fields ("sl", local address,
 * remote address, state, ..., uid), each f[i][0..len[i]). */
#define FK_TCP_FIELDS 8
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

/* Installs the hook's own backtrace as jemalloc's
 * experimental.hooks.prof_backtrace, once, after fk_je_check found a
 * jemalloc with profiling started; keeps jemalloc's own when
 * FLAMEKIT_UNWIND=jemalloc or the mallctl is missing (jemalloc < 5.3). */
void fk_unwind_install(void);

/* Which backtrace samples take: "flamekit", or "jemalloc: WHY". Static
 * storage, set once by fk_unwind_install. */
const char *fk_unwind_name(void);

/* ---- hook_recent.c: allocation lifetimes (experimental.prof_recent) ---- */

/* The records jemalloc keeps by default (FLAMEKIT_RECENT): the last
 * FK_HOOK_RECENT sampled allocations. A record costs about 80 bytes of
 * jemalloc's memory (65536 took 5.1 MiB of RSS, bench/README.md,
 * "Lifetimes"), so the default holds within 8 MiB; at lg_sample 19 a
 * service allocating 100 MB/s samples about 200 allocations a second, so
 * the list spans about 5 minutes of it. */
#define FK_HOOK_RECENT 65536
#define FK_HOOK_RECENT_MAX (16L << 20)

/* The lifetimes route's defaults and bounds: view=temporary without
 * max_ms is what is freed within 100 ms, view=oldest without min_s what
 * is live after a minute; a day either way at most. */
#define FK_HOOK_LIFE_MAX_MS 100
#define FK_HOOK_LIFE_MIN_S 60
#define FK_HOOK_LIFE_MAX_MS_MAX 86400000
#define FK_HOOK_LIFE_MIN_S_MAX 86400

/* FLAMEKIT_RECENT as read (hook_env.c): the records to keep, 0 off, -1
 * not given (MALLOC_CONF's prof_recent_alloc_max, else FK_HOOK_RECENT). */
extern long fk_recent_want;

/* Sets jemalloc's bound of records (experimental.prof_recent.alloc_max)
 * once jemalloc was found: records are kept of sampled allocations only,
 * so recording runs while sampling does. Call from the hook's thread. */
void fk_recent_install(void);

/* The record's bound as fk_recent_install set or found it (-1 unknown)
 * into *max, and why there is no record ("" when there is) into *why. */
void fk_recent_bound(long *max, const char **why);

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

/* A thread's place before fk_arena_begin moved it into the hook's arena. */
struct fk_arena_save {
	unsigned arena;            /* its thread.arena */
	int tcache;                /* its thread.tcache.enabled */
	int moved;                 /* 0: begin changed nothing, end does nothing */
};

/* Binds the calling thread (the hook's own) to the hook's arena, created
 * on first use, with its thread cache off, so that nothing it allocates
 * lands in the host's arenas or in a cache the host's threads share. The
 * arena exists only when the chosen jemalloc serves malloc (otherwise the
 * hook's allocations are not in that jemalloc at all). Call once from the
 * thread's start, after fk_je_check. 0, or -1 when there is no arena (the
 * thread is left as it was). */
int fk_arena_enter_thread(void);

/* Around hook work done on a host thread (fk_hook_dump): begin moves the
 * calling thread into the hook's arena with its thread cache off (flushed)
 * and records where it was in *sv; end puts it back. Both no-ops when
 * there is no arena. */
void fk_arena_begin(struct fk_arena_save *sv);
void fk_arena_end(const struct fk_arena_save *sv);

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

/* fork handling, as fk_je_atfork: its lock is held only around jemalloc
 * calls (never while waiting for another lock of the hook's but je_mu). */
void fk_arena_atfork(int phase);

/* ---- hook_sampling.c: what sampling itself costs ---- */

/* How a jemalloc places and counts a live sampled small object: its page,
 * its smallest large class, the padding of a large extent
 * (opt.cache_oblivious: a page), and page_rounded, whether the object's
 * extent is its class rounded up to a page and stats.allocated leaves it
 * out below the smallest large class (from 5.3.0-116, so 5.3.1), else the
 * smallest large class, counted (5.3.0 and before). */
struct fk_samp_geom {
	size_t page, large_min, large_pad;
	int page_rounded;
};

/* What live sampled objects add to jemalloc's figures beyond their own
 * size classes: to stats.allocated (allocated) and stats.active (active),
 * and the bytes of their classes stats.allocated leaves out (uncounted). */
struct fk_samp_cost {
	double allocated, uncounted, active;
};

/* Adds to *c what count live sampled objects of small size class cls
 * cost under g; classes of the smallest large class and above add
 * nothing (they are never moved). */
void fk_sampling_add(const struct fk_samp_geom *g, size_t cls, double count,
		     struct fk_samp_cost *c);

/* The chosen jemalloc's geometry into *g: 0, or -1 when unknown. */
int fk_sampling_geom(struct fk_samp_geom *g);

/* Whether jemalloc counts its live sampled objects per size class
 * (opt.prof_stats), so that fk_sampling_cost is exact. */
int fk_sampling_exact(void);

/* The bytes stats.allocated counts beyond the size classes of the live
 * sampled small objects (struct fk_samp_cost's allocated), from
 * prof.stats.bins.<i>.live; -1 without prof_stats. */
int64_t fk_sampling_cost(void);

/* The bytes of live sampled small objects stats.allocated leaves out
 * (jemalloc 5.3.1), which the program's memory must add back: counted
 * with prof_stats, else the newest fk_sampling_estimate's; -1 before
 * any. */
int64_t fk_sampling_uncounted(void);

/* fk_sampling_cost estimated from a dump's raw in-use counts of n stacks
 * (each stack's objects taken to be of its mean size; objects sampled
 * before the last prof.reset are not in a dump, so they are missed), and
 * kept for fk_sampling_uncounted; -1 when the size classes are unknown. */
int64_t fk_sampling_estimate(const int64_t *objs, const int64_t *bytes, size_t n);

/* fork handling, as fk_je_atfork (its lock, as the arena's). */
void fk_sampling_atfork(int phase);

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

/* ---- serve_origin.c: what a flame page says of its profile ---- */

struct fk_life_info;

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

enum fk_fmt {
	FK_OUT_PPROF, FK_OUT_FLAME, FK_OUT_FOLDED, FK_OUT_RAW, FK_OUT_SYMBOLIZED,
	FK_OUT_NFMT
};

/* Looks up a format name; -1 when unknown. */
int fk_fmt_parse(const char *name);

/* The HTTP Content-Type of a format. */
const char *fk_fmt_ctype(int fmt);

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
 * (FLAMEKIT_MAX_SAMPLES, set by the starter): Pyroscope's default ingest
 * limit, so that a scraper's profiles are never refused for their size. */
extern size_t fk_serve_max_samples;
#define FK_HOOK_MAX_SAMPLES 16000

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

struct fk_profile;

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

/* Seconds between interval snapshots (FLAMEKIT_SNAPSHOT_S; 0: none) and
 * the ring's memory budget (FLAMEKIT_SNAPSHOT_MB), set by the starter. */
extern double fk_snap_interval;
extern size_t fk_snap_budget;
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
 * seconds; more are 429 (hook_routes.c). */
#define FK_HOOK_RESET_BURST 16
#define FK_HOOK_RESET_S 10
/* A snapshot failure that repeats is told once, then as a count at most
 * this often (seconds). */
#define FK_HOOK_TELL_S 60
#define FK_HOOK_PEAK_STEP 0.10

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

/* Why a profile is not served when nothing can have been sampled and
 * jemalloc holds no sample. */
#define FK_HOOK_NOTHING_SAMPLED "nothing has been sampled since the program started " \
	"or since the last reset: turn sampling on, let the program run, then fetch again"

/* ---- hook_reply.c: one request and its answer, as routes see them ---- */

/* A request: its method, its path without the query, its Host for
 * messages ("HOST" when unusable), and its query parameters. */
struct fk_request {
	const char *method;        /* "GET", "HEAD" or "POST" */
	const char *path;
	const char *uri;           /* the whole target as sent: path and query */
	const char *host;
	const char *(*arg)(void *tctx, const char *name);  /* NULL: absent */
	/* Calls fn on every query parameter, in order, with its decoded key
	 * and value and their lengths (value NULL: the key came without '=');
	 * stops at the first fn that returns non-zero and returns that. NULL:
	 * the request has no parameters to list (none are checked). */
	int (*each)(void *tctx, int (*fn)(void *cls, const char *key, size_t klen,
					  const char *val, size_t vlen), void *cls);
	void *tctx;
};

/* A query parameter of rq, or NULL. */
static inline const char *fk_req_arg(const struct fk_request *rq, const char *name)
{
	return rq->arg(rq->tctx, name);
}

/* An answer: the body is owned by the reply (malloc'd, or a mapping of
 * maplen bytes: fk_hook_buf_release). A handler that sets deadline (fk_now()
 * seconds) defers it: the transport holds the request and at that time
 * calls finish(ctx, r) on a fresh reply, or drop(ctx) when the request or
 * the server ends first. */
/* A body sent as it is read (a worker's answer proxied), in place of a
 * buffer (hook_stream.c). read(cls, buf, max) copies up to max bytes into
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

/* Writes s as a JSON string, quoted: only what the hook's own messages
 * can hold needs escaping (quotes, backslashes, control bytes). */
void fk_reply_json_str(FILE *f, const char *s);

/* What answers a request (the route table's dispatcher). */
typedef void fk_handler_fn(const struct fk_request *rq, struct fk_reply *r);

/* ---- hook_params.c: the query parameters a route takes ---- */

/* What a parameter's value may be. */
enum fk_param_kind {
	FK_PARAM_BOOL,             /* true, false, 1 or 0 */
	FK_PARAM_FLAG,             /* the same, or nothing (alone or "="): true */
	FK_PARAM_UINT,             /* decimal 0 to max */
	FK_PARAM_ID,               /* decimal 1 to max */
	FK_PARAM_WORD,             /* one of word(0), word(1), ... */
	FK_PARAM_TEXT,             /* any bytes but NUL, at most FK_HOOK_MAX_URL */
	FK_PARAM_WIDTH,            /* a number 0 to 1e6, or one with '%' after */
	FK_PARAM_PID,              /* a process id: decimal 1 to FK_HOOK_PID_MAX */
	FK_PARAM_PID_ALL,          /* the same, or the word "all" */
};

/* One parameter a route takes: a row of the route table's list. */
struct fk_param {
	const char *name;
	enum fk_param_kind kind;
	uint64_t max;              /* FK_PARAM_UINT, FK_PARAM_ID: the largest value */
	/* FK_PARAM_WORD: the i-th word allowed, NULL past the last. */
	const char *(*word)(int i);
	const char *want;          /* what is allowed, for messages ("0 to 63");
				      NULL: said from the kind */
};

/* Every parameter of rq must be in params (a list ended by a NULL name)
 * or be "pid" (FK_PARAM_PID, unless params names it), be given once, with
 * a value of its kind, without a NUL byte (%00) in its name or value.
 * Returns 0; or -1 with msg (size bytes, at least 1) one sentence naming
 * the parameter and what is allowed, for a 400. route names the route in
 * messages ("GET /internal/heap"). */
int fk_params_check(const struct fk_request *rq, const struct fk_param *params,
		    const char *route, char *msg, size_t size);

/* Largest ?pid= taken as a process id (pid_t's): a larger number is not
 * one (400); a smaller one that is no process of the program is 404. */
#define FK_HOOK_PID_MAX 2147483647

/* A boolean parameter's value: "true" or "1", "false" or "0". 0 with
 * *out, or -1. */
int fk_param_bool(const char *s, int *out);

/* The index of v among word(0), word(1), ... (a FK_PARAM_WORD list), or
 * -1. */
int fk_param_word(const char *(*word)(int i), const char *v);

/* ---- serve_waste.c: where the program's memory goes ---- */

/* GET /internal/heap/waste[?format=json|folded|flame]: jemalloc's
 * statistics less the hook's arena, each class's slab waste laid to the
 * sites of the live heap dump (core/waste.h). */
void fk_waste_route(const struct fk_request *rq, struct fk_reply *r);

/* The route's formats, for its format parameter: json, folded, flame;
 * NULL past the last. */
const char *fk_waste_format_name(int i);

struct fk_jestats;
struct fk_waste_proc;
/* jemalloc's statistics of the program (every figure less the hook's
 * arena) into st (from fk_jestats_init), the process's figures and its
 * radix tree's leaves into pr, and, where not NULL, fk_arena_split's
 * figures into host and hook (one epoch refresh for all). large: the large classes too, which the sites'
 * estimate reads and RSS's parts do not (a snapshot leaves them out:
 * ~700 mallctl calls fewer). Under fk_je_lock. 0, or -1 with err (out of
 * memory). */
int fk_waste_stats(struct fk_jestats *st, struct fk_waste_proc *pr, struct fk_arena_mem *host,
		   struct fk_arena_mem *hook, int large, struct fk_err *err);

/* ---- hook_routes.c: the endpoints, a table ---- */

/* Answers rq by the route table (404 for no such path, 405 for a method
 * the path does not take). */
void fk_routes_handle(const struct fk_request *rq, struct fk_reply *r);

/* ---- serve_settings.c: the settings routes ---- */

/* GET and POST /internal/heap/settings (route handlers). */
void fk_settings_get(const struct fk_request *rq, struct fk_reply *r);
void fk_settings_post(const struct fk_request *rq, struct fk_reply *r);

/* 503 with the sentence saying what to do when jemalloc cannot profile:
 * 1 when answered so, 0 when it can. */
int fk_settings_unavailable(struct fk_reply *r);

/* In a forked child: the lock of the reset rate, which the parent's hook
 * thread may have held, is made anew. */
void fk_routes_atfork_child(void);

/* ---- hook_http.c / hook_guard.c: the HTTP transport ---- */

struct MHD_Daemon;
struct MHD_Connection;

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

/* ---- hook_peer.c: who is at the other end of a connection ---- */

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

/* Request admission (hook_guard.c): configured once by the starter. */
/* Users FLAMEKIT_ALLOW may name besides the program's own and root. */
#define FK_HOOK_MAX_ALLOW 32
struct fk_guard {
	int remote;                /* non-loopback clients and Host allowed */
	char token[256];           /* required bearer token, "" = none */
	uid_t allow[FK_HOOK_MAX_ALLOW];  /* FLAMEKIT_ALLOW's users */
	unsigned nallow;
};
extern struct fk_guard fk_guard;

/* Whether a local user may ask without the token: root, the program's
 * user (real or effective), or one FLAMEKIT_ALLOW names. */
int fk_guard_uid_ok(uid_t uid);

/* Checks one request from peer: its method, URL (urilen: the whole target
 * with its query), token, who is asking (peer NULL: admitted already by
 * the transport, a worker's socket), Host and where a browser sent it
 * from. Returns 0 to admit it, or an HTTP status with why[0..size) one
 * sentence. */
unsigned fk_guard_check(struct MHD_Connection *c, const struct fk_peer *peer,
			const char *method, const char *url, size_t urilen,
			char *why, size_t size);

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

/* What a loop thread serves. */
struct fk_loop_cfg {
	int http;                  /* serve the routes */
	int member;                /* a forked worker: its private socket, the
				      listener's registry, the address taken
				      over when the listener goes */
	struct fk_addr addr;       /* FLAMEKIT_HTTP */
	int sig;                   /* the dump signal, 0 for none */
};

/* Starts the loop thread (never sampled, every signal blocked but the
 * dump signal while it waits, its own descriptor table). For the
 * listener, waits until it listens: -1 with err when it cannot; a worker
 * returns at once (fork must). */
int fk_loop_start(const struct fk_loop_cfg *cfg, struct fk_err *err);

/* Whether a loop runs, and whether it serves HTTP. */
int fk_loop_running(void);
int fk_loop_serving(void);

/* The program's address as the serving loop was given it ("127.0.0.1:6060",
 * "unix:/path"; a worker's is its listener's, which it may take over), or
 * NULL when no loop serves. */
const char *fk_loop_addr(void);


/* Whether the running loop is a worker's (a forked child's, not serving
 * the address). */
int fk_loop_member(void);

/* Runs fn(arg) on the loop thread and waits for it (the module cache's
 * files are open in that thread's table); on the caller when no loop
 * runs or the caller is the loop. */
int fk_loop_call(void (*fn)(void *), void *arg);

/* In a forked child: forgets the thread (which does not exist there),
 * closing nothing; *cfg gets what it served. 1 when there was one. */
int fk_loop_forget(struct fk_loop_cfg *cfg);

struct fk_loop;                /* one loop thread, hook_loop.c */

/* Detaches the running loop from the process (the caller holds the lock
 * that serialises starting and stopping, hook_main.c): afterwards
 * fk_loop_running() is 0. NULL when none runs. */
struct fk_loop *fk_loop_take(void);

/* Stops a detached loop without any lock held: tells its thread to stop,
 * waits for it at most wait seconds (< 0: until it ends), then frees lp.
 * 0; or -1 when the thread is still busy after wait: it is then left to
 * end on its own (for the exit path, which must not wait for a
 * conversion in progress). */
int fk_loop_end(struct fk_loop *lp, double wait);

/* ---- hook_answer.c: what a worker says, read as untrusted bytes ---- */

/* A worker's registration line on the registry's connection, sent when it
 * joins (and again when its socket changes): "NAME\n" when it serves on
 * @flamekit-hook/GROUP/NAME with NAME its pid, "NAME UID PID\n" when that
 * name was taken by process PID of user UID ("-": unknown) and it serves
 * on NAME, another one, instead. */
#define FK_ANSWER_MAX_REG 96
struct fk_answer_reg {
	char name[48];             /* 1 to 47 of [0-9a-f-] */
	int taken;                 /* its pid's name was taken */
	long long uid, pid;        /* by whom; -1 unknown */
};

/* Reads one line from buf[0..n) into r: 1 with *used its bytes, 0 when no
 * whole line is there yet (n below FK_ANSWER_MAX_REG), -1 malformed. */
int fk_answer_reg(const char *buf, size_t n, struct fk_answer_reg *r, size_t *used);

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

/* Reads the head at the start of buf[0..n) into h: 1; 0 when it is not
 * whole yet (n below FK_ANSWER_MAX_HEAD); -1 with *why a static sentence
 * when it is not an HTTP/1.x answer's head or is too long. */
int fk_answer_head(const char *buf, size_t n, struct fk_answer_head *h, const char **why);

/* The scalar member key of the JSON object json[0..n) (a settings
 * answer): a string's text (escapes undone, control characters and
 * non-ASCII escapes as '?') or a literal's (true, 12), NUL-terminated in
 * out, cut at size - 1 bytes. 0, or -1 (out "") when the object is
 * malformed before the member, lacks it, or its value is an object or an
 * array. Never reads json[n]. */
int fk_answer_field(const char *json, size_t n, const char *key, char *out, size_t size);

/* ---- hook_group.c: the program's processes ---- */

struct pollfd;
struct fk_addr;

/* The longest group name, its NUL included. */
#define FK_GROUP_NAME_MAX 96

/* The listener's group: the one an earlier image of this process left
 * (name and first user, carried across exec by hook_state.c), else a new
 * one named after the calling process, its start time and a random
 * number. */
void fk_group_init(const char *carried, uid_t first_uid);
const char *fk_group_name(void);
uid_t fk_group_first_uid(void);

/* Listener: listens on the group's registry. 0 or -1 with err. */
int fk_group_listen(struct fk_err *err);

/* Worker: listens on its private socket, @flamekit-hook/GROUP/PID, or on
 * @flamekit-hook/GROUP/PID-RANDOM when another process holds that name
 * (abstract names are public: another user can take the next pids' in
 * advance); the fd, or -1 with err. Tells the listener when joined. */
int fk_group_worker_socket(struct fk_err *err);

/* Worker: connects to the listener's registry and says its socket's name.
 * 0, or -1 when none answers or the name is held by a process that is not
 * of the program. */
int fk_group_join(void);
void fk_group_leave(void);

/* Worker: whether the listener it knew (joined, or its parent's) is
 * still alive with the start time it had: then its registry went with
 * an exec, not an exit, and the next image opens it again. */
int fk_group_listener_alive(void);

/* The takeover of addr failed (the listener is gone, its address is
 * held): from the third try on, says so once on stderr when a process of
 * another user holds the address or the registry's name. */
void fk_group_takeover_failed(const struct fk_addr *addr);

/* Closes every group socket of this process. */
void fk_group_close(void);

/* In a forked child: forgets the parent's sockets (none are in the
 * child's table). */
void fk_group_atfork_child(void);

/* The group's descriptors to poll into pf (at most max), and what their
 * events mean: FK_GROUP_LOST when the listener is gone. */
int fk_group_pollfds(struct pollfd *pf, int max);
int fk_group_events(const struct pollfd *pf, int n);
#define FK_GROUP_LOST 1

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
 * h->length), on the loop (hook_stream.c). 0, or -1 with err. Blocking:
 * call it from off-loop work. */
int fk_group_open(const struct fk_member *m, const char *method, const char *target,
		  double seconds, struct fk_answer_head *h, struct fk_body_src *src,
		  struct fk_err *err);

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
/* Seconds every worker together has to answer for the processes list,
 * which answers within 2 s whatever its workers do. */
#define FK_HOOK_LIST_SECONDS 1.5
/* Workers asked at once by the list or pid=all. */
#define FK_HOOK_ASK_PARALLEL 64
/* Largest answer of a worker to the list or pid=all (a settings object,
 * about 2 KiB): read into memory, so small. */
#define FK_HOOK_MAX_ASK_ANSWER (64 << 10)
/* Largest body a worker may send through the listener: streamed, never
 * held; past it the client's connection is cut. */
#define FK_HOOK_MAX_PROXY (1ULL << 30)

/* ---- hook_procs.c: routes over the program's processes ---- */

/* Answers rq for process pid (not this one) through its socket. */
void fk_procs_proxy(const struct fk_request *rq, pid_t pid, struct fk_reply *r);

/* GET /internal/heap/processes. */
void fk_procs_list(const struct fk_request *rq, struct fk_reply *r);

/* POST /internal/heap/settings?pid=all: self is this process's own
 * answer (taken), the workers are asked at once. */
void fk_procs_all(const struct fk_request *rq, struct fk_reply *self, struct fk_reply *r);

/* ---- hook_stream.c: a streamed body on the transport ---- */

/* Seconds a streamed body may wait for its source's next bytes. */
#define FK_HOOK_STREAM_IDLE_SECONDS 30

struct MHD_Response;
struct MHD_Connection;

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

/* Finds the settings a previous image of this process (same pid and
 * start time, before an exec) left. Returns 1 when inherited. Call once,
 * from the constructor of the process that serves. */
int fk_state_init(void);

/* Records the settings a request or the API set (lg_sample -1: unchanged). */
void fk_state_save(int enabled, int lg_sample);

/* The process group's name and first user, as the previous image left
 * them or fk_state_save_group recorded: 0, or -1 when none (a forked
 * child has none). */
int fk_state_group(char *name, size_t size, uid_t *first_uid);
void fk_state_save_group(const char *name, uid_t first_uid);

/* Applies inherited settings, once jemalloc is found; from the loop
 * thread before it serves. */
void fk_state_restore(void);

/* Forgets the file (in a forked child, which must not write its
 * parent's); remove: also deletes it (the process exits). */
void fk_state_forget(int remove);

/* fork handling, as fk_je_atfork. */
void fk_state_atfork(int phase);

/* ---- hook_signal.c: FLAMEKIT_DUMP_SIGNAL ---- */

/* Installs the handler for the signal named by FLAMEKIT_DUMP_SIGNAL;
 * returns its number, or -1 (no signal asked for, or err set). */
int fk_sig_install(struct fk_err *err);

/* The loop thread takes the signals (attach, with its thread id) or no
 * longer (detach); fk_sig_take says whether one came since last asked. */
void fk_sig_attach(void);
void fk_sig_detach(void);
int fk_sig_take(void);

/* Writes one dump into FLAMEKIT_DUMP_DIR (or the current directory) as
 * flamekit.PID.SEQ.heap; a line on stderr on failure. */
void fk_sig_dump(void);

/* In a forked child: no thread takes the signals until the child's own
 * runs; the sequence restarts. Async-signal-safe. */
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
/* The module cache's budget in MiB, FLAMEKIT_CACHE_MB (0: no cache), set
 * by hook_env.c before the first request. */
extern size_t fk_serve_cache_mb;

/* ---- hook_env.c: the settings from the environment ---- */

/* Reads FLAMEKIT_SNAPSHOT_S, FLAMEKIT_SNAPSHOT_MB and FLAMEKIT_CACHE_MB
 * into fk_snap_interval, fk_snap_budget and fk_serve_cache_mb; unset or
 * empty keeps the default. 0, or -1 with err naming the bad value. */
int fk_env_read(struct fk_err *err);

/* Reads FLAMEKIT_ALLOW (user names and uids, separated by commas) into
 * g->allow: the users who may ask besides root and the program's own. 0,
 * or -1 with err naming the bad value (an unknown name among them). */
int fk_env_allow(struct fk_guard *g, struct fk_err *err);

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
struct fk_profile;
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
};

/* The serving half's table, loading it first (once: later calls return
 * the table, or the same failure). NULL with err when it cannot be loaded
 * (missing beside this library, of another version). Any thread; the
 * load itself is serialised with fork (fk_serve_atfork). */
const struct fk_serve_ops *fk_serve_load(struct fk_err *err);

/* The table when the serving half is loaded, else NULL: never loads. */
const struct fk_serve_ops *fk_serve_ops(void);

/* fork handlers' share: 0 prepare (waits for a load in progress), 1
 * parent, 2 child. */
void fk_serve_atfork(int phase);

/* ---- hook_elf.c: a function's address from an ELF file's own tables ---- */

/* Looks names[0..n) up as defined functions in the ELF file path the way
 * fk_symbolize_find_func does (its .symtab, else a build-id debug file's,
 * else its .dynsym), reading the files directly: the 0-based index of the
 * first name found in names' order, with *vaddr and *table (".symtab",
 * "debug file" or ".dynsym"); -1 when none is defined there and no other
 * source could define one; -2 when the file cannot be read; FK_ELF_ASK
 * when the answer needs the full reader (a .gnu_debugdata section, a
 * debug file found by .gnu_debuglink, a form this reader does not take;
 * neither asks debuginfod servers). */
#define FK_ELF_ASK (-3)
int fk_elf_find_func(const char *path, const char *const *names, size_t n,
		     uint64_t *vaddr, const char **table);
/* Reads FLAMEKIT_AT_EXIT into path (size bytes), made absolute: 0 when
 * unset or empty, 1 when set, 2 when set with "%p" in it (a file per
 * process), or -1 with err naming the bad value (a '%' but %p and %%, a
 * folder, no such folder). */
int fk_env_at_exit(char *path, size_t size, struct fk_err *err);

/* ---- hook_atexit.c: FLAMEKIT_AT_EXIT, the heap at exit ---- */

/* Reads FLAMEKIT_AT_EXIT (hook_env.c) and, when it is set and jemalloc
 * can profile, turns sampling on and arranges for the heap to be written
 * there when the process exits normally (exit or a return from main, not
 * _exit or a signal): by the process that read it, or with %p by every
 * process of the program. Problems are told on stderr once. Called by the
 * constructor. */
void fk_atexit_init(void);

/* Writes a raw dump of the heap now (with its maps) to path, whole or not
 * at all (a temporary file beside it, renamed); what names the dump in
 * the one line on stderr that a failure or an empty profile gives.
 * 0, or -1. */
int fk_dump_to_file(const char *path, const char *what);

#define FK_HOOK_STR_(x) #x
#define FK_HOOK_STR(x) FK_HOOK_STR_(x)

#endif
