/* SPDX-License-Identifier: MIT */
/* The resident half's own declarations (libflamekit-hook.so.0, HOOK_SRC in
 * capture/build.mk): what its files share and the serving half never
 * calls. What crosses to the serving half is hook_private.h. */
#ifndef FK_HOOK_INT_H
#define FK_HOOK_INT_H

#include "hook_private.h"
#include "hook_env.h"



/* ---- hook_find.c / hook_jemalloc.c: finding and driving jemalloc ---- */
/* Copies of jemalloc told apart in one process. */
#define FK_HOOK_MAX_COPIES 8

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

/* Makes fn the mallctl to use from now on (fk_hook_set_mallctl). 0, or -1
 * with err when fn is NULL or does not answer as a mallctl. */
int fk_je_set_api(fk_mallctl_fn fn, struct fk_err *err);



/* fork handling: phase 0 (prepare) takes the short lock of what was found
 * (never the dump lock, which the hook's thread holds across a dump and
 * a conversion: a fork never waits for those), 1 (parent) releases it, 2
 * (child) releases it and makes the dump lock anew: its holder, if any,
 * is a thread the child does not have, and what it guarded is left. */
void fk_je_atfork(int phase);

/* ---- hook_proc.c: facts about a process, from /proc ---- */
/* The start time of pid in clock ticks after boot (0: unknown): with the
 * pid, what tells a process from a later one that reuses its pid. */
uint64_t fk_proc_start(pid_t pid);

/* The socket listening on TCP port (any address, v4 or v6): 1 with *uid
 * its owner and *pid a process that holds it (0 when none of those /proc
 * shows this user holds it), 0 when none listens, -1 when it cannot be
 * read. Reads every process's descriptors: for a message, not a loop. */
int fk_proc_port_holder(unsigned port, pid_t *pid, uid_t *uid);

/* The same without the process: 1 with *uid, 0 none, -1 unreadable.
 * Reads the socket tables alone. */
int fk_proc_port_uid(unsigned port, uid_t *uid);

/* The live children of parent (at most max) into out; how many. */
size_t fk_proc_children(pid_t parent, pid_t *out, size_t max);

/* Whether /proc/PID/maps names text (a library's file name). */
int fk_proc_maps_has(pid_t pid, const char *text);

/* ---- hook_holder.c: who holds the address ---- */

struct fk_addr;
/* Why address a is in use, for the end of the "cannot listen" message:
 * ": process N (COMMAND) holds it: ADVICE" (the advice differs when N
 * started this process), ": a socket of uid U holds it: ...", or "" when
 * /proc does not say (a unix socket). Into buf; returns buf. */
const char *fk_holder_why(const struct fk_addr *a, char *buf, size_t size);

/* Called as a process that served addr exits: when a child it started
 * with exec (another program) has the hook loaded, and so leaves the
 * address to this one, says so in one line on stderr. */
void fk_holder_exit(const char *addr);

/* ---- hook_unwind.c: the sampling backtrace ---- */
/* Installs the hook's own backtrace as jemalloc's
 * experimental.hooks.prof_backtrace, once, after fk_je_check found a
 * jemalloc with profiling started; keeps jemalloc's own when
 * FLAMEKIT_UNWIND=jemalloc or the mallctl is missing (jemalloc < 5.3). */
void fk_unwind_install(void);

/* ---- hook_recent.c: allocation lifetimes (experimental.prof_recent) ---- */
/* The records jemalloc keeps by default (FLAMEKIT_RECENT): the last
 * FK_HOOK_RECENT sampled allocations. A record costs about 80 bytes of
 * jemalloc's memory (65536 took 5.1 MiB of RSS, bench/README.md,
 * "Lifetimes"), so the default holds within 8 MiB; at lg_sample 19 a
 * service allocating 100 MB/s samples about 200 allocations a second, so
 * the list spans about 5 minutes of it. */
#define FK_HOOK_RECENT 65536
#define FK_HOOK_RECENT_MAX (16L << 20)

/* Sets jemalloc's bound of records (experimental.prof_recent.alloc_max)
 * once jemalloc was found: records are kept of sampled allocations only,
 * so recording runs while sampling does. Call from the hook's thread. */
void fk_recent_install(void);

/* ---- hook_arena.c: the hook's own memory, in an arena of its own ---- */
/* A thread's place before fk_arena_begin moved it into the hook's arena. */
struct fk_arena_save {
	unsigned arena;            /* its thread.arena */
	int tcache;                /* its thread.tcache.enabled */
	int moved;                 /* 0: begin changed nothing, end does nothing */
};

/* Around hook work done on a host thread (fk_hook_dump): begin moves the
 * calling thread into the hook's arena with its thread cache off (flushed)
 * and records where it was in *sv; end puts it back. Both no-ops when
 * there is no arena. */
void fk_arena_begin(struct fk_arena_save *sv);
void fk_arena_end(const struct fk_arena_save *sv);

/* fork handling, as fk_je_atfork: its lock is held only around jemalloc
 * calls (never while waiting for another lock of the hook's but je.mu). */
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

/* The bytes of live sampled small objects stats.allocated leaves out
 * (jemalloc 5.3.1), which the program's memory must add back: counted
 * with prof_stats, else the newest fk_sampling_estimate's; -1 before
 * any. */
int64_t fk_sampling_uncounted(void);

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

/* ---- hook_loop.c: the hook's one thread ---- */
/* What a loop thread serves. */
struct fk_loop_cfg {
	int http;                  /* serve the routes */
	int member;                /* a forked worker: its private socket, the
				      listener's registry, the address taken
				      over when the listener goes */
	struct fk_addr addr;       /* FLAMEKIT_HTTP */
	int sig;                   /* the dump signal, 0 for none */
	int mounted;               /* with http: the routes are the program's
				      own server's (fk_hook_handle), no socket;
				      not "serving" (fk_loop_serving), no
				      worker after a fork */
};

/* Starts the loop thread (never sampled, every signal blocked but the
 * dump signal while it waits, its own descriptor table). For the
 * listener, waits until it listens: -1 with err when it cannot; a worker
 * returns at once (fork must). */
int fk_loop_start(const struct fk_loop_cfg *cfg, struct fk_err *err);

/* Whether a loop runs, and whether it serves HTTP. */
int fk_loop_running(void);
int fk_loop_serving(void);
/* Whether the loop is a mounted one (fk_loop_cfg.mounted). */
int fk_loop_mounted(void);
/* Whether the loop is a mounted one (fk_loop_cfg.mounted). */
int fk_loop_mounted(void);



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

/* A worker's answer to its listener's question (FK_GROUP_QUESTION) on the
 * registry's connection: one line, "status\tENABLED\tVERSION\tSYMBOL\tMODULE\n"
 * (ENABLED 0 or 1, the others text without control bytes), at most
 * FK_ANSWER_MAX_LINE bytes. */
#define FK_ANSWER_STATUS "status\t"
#define FK_ANSWER_MAX_LINE 704

/* Writes st's line into buf (size bytes; a byte the line cannot hold,
 * a control byte or one beyond ASCII, as '?'). Its length, 0 when it does
 * not fit. */
size_t fk_answer_status_line(const struct fk_status *st, char *buf, size_t size);

/* Reads one status line from buf[0..n) into st: 1 with *used its bytes;
 * 0 when no whole line is there yet (n below FK_ANSWER_MAX_LINE); -1
 * malformed, with *used the line's bytes when it ended within
 * FK_ANSWER_MAX_LINE, else 0. A byte beyond ASCII reads as '?'. */
int fk_answer_status(const char *buf, size_t n, struct fk_status *st, size_t *used);

/* ---- hook_group.c: the program's processes ---- */
/* The question a listener asks a worker on its registry connection, one
 * byte; the worker's hook thread answers one status line, from its
 * resident half. */
#define FK_GROUP_QUESTION '?'

/* The longest group name, its NUL included. */
#define FK_GROUP_NAME_MAX 96

/* The listener's group: the one an earlier image of this process left
 * (name and first user, carried across exec by hook_state.c), else a new
 * one named after the calling process, its start time and a random
 * number. */
void fk_group_init(const char *carried, uid_t first_uid);
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

/* ---- hook_state.c: the sampling state, carried across exec ---- */
/* Finds the settings a previous image of this process (same pid and
 * start time, before an exec) left. Returns 1 when inherited. Call once,
 * from the constructor of the process that serves. */
int fk_state_init(void);

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

/* hook_env.h: the settings from the environment. */

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

#endif
