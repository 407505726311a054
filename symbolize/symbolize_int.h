/* SPDX-License-Identifier: MIT */
/* Declarations shared by the files of symbolize/ (not a public interface). */
#ifndef FK_SYMBOLIZE_INT_H
#define FK_SYMBOLIZE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>
#include <elfutils/version.h>
#include <gelf.h>

#include "allocframes.h"
#include "limits.h"
#include "u64map.h"
#include "profile.h"
#include "symbolize.h"

/* ---- span.c: address ranges searched by address ---- */

/* [lo, hi), and the largest hi of the ranges up to this one in an array
 * sorted by lo (fk_span_index sets it). Embedded as the first member of
 * the element structs below, so an element is its span. */
struct fk_span {
	uint64_t lo, hi, maxhi;
};

/* qsort order: by lo, then by hi. */
int fk_span_cmp(const void *a, const void *b);

/* Sets maxhi through v: n elements of size bytes, each beginning with a
 * struct fk_span, sorted by lo. */
void fk_span_index(void *v, size_t n, size_t size);

/* The element of such an indexed array holding addr with the latest start
 * (the last such in the order of v), or NULL. */
void *fk_span_find(const void *v, size_t n, size_t size, uint64_t addr);

/* ---- rootpath.c: files named by input, opened safely ---- */

/* Opens path read-only if it is a regular file, without ever waiting (a
 * FIFO, device or socket is refused, not waited on); with nofollow, not
 * through a symbolic link in its last component. Returns the descriptor
 * (blocking again), or with a lowercase reason in why (size n) -1 when it
 * cannot be opened (errno kept) or -4 when it is no regular file. */
int fk_rootpath_open_regular(const char *path, int nofollow, char *why, size_t n);

/* Opens path, as a dump names it, under root (NULL or "" = none: path as
 * is) with fk_rootpath_open_regular. Under a root the path is resolved one
 * component at a time inside it: '..' at the root and a symbolic link
 * leading above it are refused, an absolute link starts again at the root.
 * *full gets the malloc'd path opened (the caller frees it, also on
 * failure; NULL when out of memory or refused). Returns the descriptor,
 * -1 or -4 with why as fk_rootpath_open_regular, -2 when out of memory, or
 * -3 with why when the path leaves the root. */
int fk_rootpath_open(const char *root, const char *path, char **full,
		     char *why, size_t n);

/* The part of full, a path fk_rootpath_open made under root, below the
 * root (starting with '/'), or NULL when full is not under root or root is
 * NULL, "" or "/". */
const char *fk_rootpath_below(const char *root, const char *full);

/* ---- zsect.c checks (see below) ---- */

/* 0 when the compressed sections of e (SHF_COMPRESSED, and GNU .zdebug_*)
 * claim at most FK_MAX_ZSECT_RATIO times the file's size in all once
 * inflated; else -1 with a reason in why (size n). */
int fk_zsect_check(Elf *e, char *why, size_t n);

/* ---- elfsym.c: a module's function symbols, sorted, built once ---- */
struct fk_func {
	struct fk_span span;           /* module addresses */
	const char *name;              /* raw symbol name, owned by libdwfl's ELF */
	int rank;                      /* preference among aliases, higher wins */
};

struct fk_functab {
	struct fk_func *v;
	size_t n;
};

/* Fills t with the sized function symbols of mod (.symtab of the file or its
 * debug file, else .dynsym and .gnu_debugdata). Returns 0, or -1 when out of
 * memory. A module without symbols gives an empty table. */
int fk_functab_build(struct fk_functab *t, Dwfl_Module *mod);

/* Returns the symbol whose [lo, hi) holds addr (the preferred alias, the
 * innermost when symbols nest), or NULL. */
const struct fk_func *fk_functab_find(const struct fk_functab *t, uint64_t addr);

/* Frees the table (names stay libdwfl's) and empties it. */
void fk_functab_release(struct fk_functab *t);

/* ---- symname.c: raw symbol names to display and system names ---- */

/* Length of raw without a version suffix ("@GLIBC_2.2.5", "@@..."). */
size_t fk_symname_syslen(const char *raw, size_t len);

/* Length of raw without its version suffix and compiler clone suffixes
 * (".part.N", ".isra.N", ".constprop.N", ".cold", ".localalias", ...). */
size_t fk_symname_baselen(const char *raw, size_t len);

/* Demangles the Rust (v0 or legacy) or C++ (Itanium ABI) name raw[0..len)
 * with libiberty into a malloc'd string: Rust names in rustc-demangle's
 * alternate form (no hash, no crate disambiguators), C++ names with their
 * parameters. NULL when raw is not mangled, demangling fails, or the name
 * would pass FK_MAX_NAME bytes (or out of memory). */
char *fk_symname_demangle(const char *raw, size_t len);

/* Whether libiberty may demangle the NUL-terminated name m: 1 unless m is
 * a Rust v0 name ("_R...") that does not parse or whose binders declare
 * more lifetimes than libiberty should loop over (rustv0.c). */
int fk_symname_v0_bounded(const char *m);

/* Length of the mangled part of a legacy Rust name, through the "E" after
 * its hash element (what follows is a suffix such as ".llvm.123"), or 0
 * when raw[0..len) is no legacy Rust name. Its path may hold dots
 * ("core..clone..Clone"), which are no clone suffixes. */
size_t fk_symname_rust_legacylen(const char *raw, size_t len);

/* ---- dwfile.c, dwunits.c, dwinline.c: DWARF inline chains and
 * file:line, per unit built once ---- */
struct fk_dwline;

struct fk_dwframe {
	const char *name;              /* DW_AT_name, or NULL */
	const char *linkage;           /* DW_AT_linkage_name, or NULL */
	const char *file;              /* source file, or NULL */
	uint32_t line;
};

/* Opens the DWARF index of the ELF file path (the module's debug file, or
 * the module itself) whose addresses plus bias are module addresses, in
 * steps, so that its compressed sections can be inflated on several
 * threads: open lists them, inflate (safe on distinct sections at once,
 * touching nothing else) inflates one, begin inflates what is left and
 * opens the DWARF; 0, or -1 when the file has no DWARF (free it then).
 * open returns NULL when the file is not an ELF file (or out of memory).
 * The file is opened on its own so that, with internals (see
 * FK_ELF_INTERNALS below), only the debug sections lookups read are
 * inflated, by us; without, libdw inflates them all itself. Nothing is
 * parsed beyond the unit headers until a lookup. */
struct fk_dwline *fk_dwline_open(const char *path, uint64_t bias, int internals);
size_t fk_dwline_nsections(const struct fk_dwline *d);
size_t fk_dwline_section_size(const struct fk_dwline *d, size_t i);
void fk_dwline_inflate(struct fk_dwline *d, size_t i);
int fk_dwline_begin(struct fk_dwline *d);

/* The DWARF index of libdwfl's DWARF of mod (module addresses), or NULL
 * when it has none (or out of memory). */
struct fk_dwline *fk_dwline_of_module(Dwfl_Module *mod);

/* Writes the inline chain holding module address addr into out (at most max
 * frames, innermost first) and returns the count; 0 when no subprogram of
 * the DWARF covers addr. Strings live as long as the module. */
int fk_dwline_lookup(struct fk_dwline *d, uint64_t addr,
		     struct fk_dwframe *out, int max);

/* The DW_AT_dwo_name of a split-DWARF skeleton unit whose .dwo file libdw
 * did not find (the first one), or NULL: those units give lines only. */
const char *fk_dwline_missing_dwo(const struct fk_dwline *d);

/* True when a .dwo file was not looked for because a path libdw would
 * open for it is no regular file (a FIFO there would block libdw). */
int fk_dwline_dwo_refused(const struct fk_dwline *d);

/* Source file:line of addr from the line table alone; 0 or -1. */
int fk_dwline_src(struct fk_dwline *d, uint64_t addr, const char **file,
		  uint32_t *line);

/* Frees the index and, when it opened the file itself, the file. NULL is a
 * no-op. */
void fk_dwline_free(struct fk_dwline *d);

/* ---- zsect.c: zlib-compressed ELF sections inflated by us ---- */

/* Installing inflated bytes into libelf's Elf_Data of a section
 * (fk_zsect_install) and hiding sections by rewriting their headers in a
 * private handle (fk_dwline_open) rely on how elfutils 0.188 keeps and
 * reads sections, checked with that version only; other versions, or the
 * environment variable FLAMEKIT_NO_ELF_INTERNALS=1 at run time, let
 * libelf and libdw inflate the sections themselves (same output, slower).
 * A build may set it (CFLAGS=-DFK_ELF_INTERNALS=0) to try the other path. */
#ifndef FK_ELF_INTERNALS
#define FK_ELF_INTERNALS (_ELFUTILS_VERSION == 188)
#endif

/* Whether that path is taken: FK_ELF_INTERNALS and not switched off by
 * the environment. Reads the environment: call it on one thread. */
int fk_zsect_internals(void);

struct fk_zsect {
	size_t ndx;                    /* section index */
	const unsigned char *src;      /* the zlib stream, in the file's image */
	size_t srclen;
	unsigned char *dst;            /* the inflated bytes (malloc'd), or NULL */
	size_t dstlen;
	uint64_t align;
	int done;                      /* 0 not tried, 1 inflated, -1 failed */
};

/* Fills z for scn when it is a zlib-compressed section of e in the host's
 * byte order and returns 1; 0 otherwise (libelf then inflates it). */
int fk_zsect_find(Elf *e, Elf_Scn *scn, struct fk_zsect *z);

/* Inflates z once (done 1, or -1 when the stream is bad or out of
 * memory). Touches only z: distinct sections may be inflated at once. */
void fk_zsect_inflate(struct fk_zsect *z);

/* Gives e the inflated bytes of z as its uncompressed section (they stay
 * z's: release z after ending e). 0, or -1 (section left compressed). */
int fk_zsect_install(Elf *e, struct fk_zsect *z);

/* Frees the inflated bytes. */
void fk_zsect_release(struct fk_zsect *z);

/* ---- ehframe.c ---- */

/* Finds the .eh_frame (or .debug_frame) FDE holding module address addr of
 * mod and stores its start in *start. *cfi caches the parsed table (NULL at
 * first; release with fk_ehframe_release). Returns 0, or -1 when no FDE
 * covers addr. */
int fk_ehframe_func_start(Dwfl_Module *mod, void **cfi, uint64_t addr,
			  uint64_t *start);

/* Frees a table cached by fk_ehframe_func_start. NULL is a no-op. */
void fk_ehframe_release(void *cfi);

/* ---- debugfind.c: offline debug-file finder for libdwfl ---- */
struct fk_smod;

/* Returns libdwfl callbacks that find a module's debug file by build-id under
 * each debug folder's .build-id/, then by .gnu_debuglink beside the file,
 * in its .debug/ and under each debug folder, then from the context's
 * debuginfod servers (fk_dinfod_find) when it has any. The
 * module's userdata must point to its struct fk_smod. */
const Dwfl_Callbacks *fk_debugfind_callbacks(void);

/* Reads the GNU build-id note of e into buf (size max); returns its length,
 * 0 when there is none. */
size_t fk_debugfind_build_id(Elf *e, unsigned char *buf, size_t max);

/* ---- dinfod_cache.c: the debuginfod clients' cache ---- */

/* The cache folder, opened for a run; read-only once open. */
struct fk_dcache {
	int dir;                       /* the folder, opened and checked, or -1 */
	char path[FK_MAX_PATH];        /* its name */
	uint64_t miss_s;               /* seconds a miss noted is believed */
};

/* One build-id's entry: its folder and the temporary file being written. */
struct fk_dentry {
	const struct fk_dcache *c;
	int dir;                       /* FOLDER/BUILDID, or -1 */
	int fd;                        /* the temporary file, or -1 */
	char hex[2 * 64 + 1];          /* the build-id */
	char tmp[24];                  /* the temporary file's name in dir */
};

/* Finds the cache folder as libdebuginfod does (DEBUGINFOD_CACHE_PATH,
 * else ~/.debuginfod_client_cache when it exists, else
 * $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client),
 * makes it when missing (mode 0700) and opens it, never through a
 * symbolic link, ours and writable by no one else. 0, or -1 with why
 * (size n). */
int fk_dcache_open(struct fk_dcache *c, char *why, size_t n);

/* Closes c's folder. */
void fk_dcache_close(struct fk_dcache *c);

enum { FK_DCACHE_NONE, FK_DCACHE_HIT, FK_DCACHE_MISS };

/* Opens e, build-id hex's entry of c (its folder made when missing and
 * checked as c's), and looks in it: FK_DCACHE_HIT with the cached file
 * open in *fd (the caller's), FK_DCACHE_MISS for a miss noted within
 * c->miss_s seconds, FK_DCACHE_NONE; -1 with why (size n) when the
 * folder cannot be used. End e with fk_dcache_end whatever the result. */
int fk_dcache_look(const struct fk_dcache *c, const char *hex, struct fk_dentry *e,
		   int *fd, char *why, size_t n);

/* The path of name in e's folder into buf (size n): 0, or -1 when too long. */
int fk_dcache_path(const struct fk_dentry *e, const char *name, char *buf, size_t n);

/* Creates e's temporary file (debuginfo.XXXXXX, mode 0600, a new name)
 * into e->fd: 0, or -1 with why. */
int fk_dcache_create(struct fk_dentry *e, char *why, size_t n);

/* Empties e's temporary file for another try: 0 or -1. */
int fk_dcache_restart(struct fk_dentry *e);

/* Renames e's temporary file to e's debuginfo (read-only): 0, or -1
 * with why (the temporary file is left to fk_dcache_end). */
int fk_dcache_commit(struct fk_dentry *e, char *why, size_t n);

/* Removes e's debuginfo (a cached file that is not the one asked for). */
void fk_dcache_forget(struct fk_dentry *e);

/* Notes a miss for e: an empty debuginfo. */
void fk_dcache_miss(struct fk_dentry *e);

/* Removes e's temporary file if any, closes e and removes its folder
 * when nothing is left in it. */
void fk_dcache_end(struct fk_dentry *e);

/* ---- debuginfod.c: debug files from debuginfod servers ---- */
struct fk_dinfod;

/* A run's access to the servers DEBUGINFOD_URLS names (read now, as are
 * DEBUGINFOD_TIMEOUT and DEBUGINFOD_MAXSIZE), the first
 * FK_MAX_DEBUGINFOD_SERVERS of them; NULL when the variable is unset or
 * empty (nothing loaded) or out of memory. libcurl is loaded the first
 * time a server is asked; a library that cannot be loaded is the run's
 * failure. */
struct fk_dinfod *fk_dinfod_new(void);

/* Checks a debug file at path (valid during the call: a temporary name
 * in the cache for a file just received): returns a descriptor of it
 * when it is the file asked for, FK_DINFOD_OTHER when it is not (not
 * ELF, another build-id), another negative value when it is but cannot
 * be used. name (valid during the call) is the path it has in the cache
 * once taken, the one to remember. */
typedef int fk_dinfod_check_fn(void *ctx, const char *path, const char *name);
#define FK_DINFOD_OTHER (-3)

/* The debug file of build-id bid[0..len), from the cache (a file, or a
 * miss noted) or else from the servers in turn (a 404 is "not there");
 * safe on several threads at once. A query ends within
 * DEBUGINFOD_TIMEOUT (else FK_DEBUGINFOD_TIMEOUT) seconds in all, and a
 * file stops at DEBUGINFOD_MAXSIZE (else FK_MAX_DEBUGINFOD_FILE) bytes
 * written (what a server's gzip'd body inflates to). A file is written
 * to a temporary file in the cache, passed to check (with ctx) and
 * renamed into the cache only when check takes it or says it is the
 * file but unusable; the result is check's. A file check calls
 * FK_DINFOD_OTHER is removed and is its server's failure (a cached one
 * is removed and asked for again). Returns -1 otherwise: not found, or
 * d NULL, or a failure. Failures are noted per server for
 * fk_dinfod_failure, and a server that failed is asked no more this
 * run; d asks no more once every server failed, or after a failure of
 * no one server (the cache, libcurl). */
int fk_dinfod_find(struct fk_dinfod *d, const unsigned char *bid, size_t len,
		   fk_dinfod_check_fn *check, void *ctx);

/* How many failures d has to report (0 for NULL): one per server that
 * failed, and one for a failure put down to no one server. Call when no
 * query runs. */
size_t fk_dinfod_failures(const struct fk_dinfod *d);

/* Failure i (below fk_dinfod_failures): the server (or DEBUGINFOD_URLS
 * whole) into *url, d's, and what happened into why (size n). */
void fk_dinfod_failure(const struct fk_dinfod *d, size_t i, const char **url,
		       char *why, size_t n);

/* Frees d. NULL is a no-op. */
void fk_dinfod_free(struct fk_dinfod *d);

/* ---- smod.c: one module's life cycle ---- */
struct fk_symctx;

/* How far a module has got, in order: each step needs the ones before it,
 * and every step after FK_SMOD_OPEN is taken lazily (fk_smod_reach). */
enum fk_smod_state {
	FK_SMOD_NEW,                   /* not opened yet */
	FK_SMOD_BAD,                   /* unusable: not opened, or not the file
					* the process ran */
	FK_SMOD_OPEN,                  /* checked against the dump, reported
					* to libdwfl: usable */
	FK_SMOD_LISTED,                /* debug file found, its DWARF file
					* opened (dw_opened), sections listed */
	FK_SMOD_TABLED,                /* symbol table built (funcs) */
	FK_SMOD_READY,                 /* DWARF index open (dw, NULL without) */
	FK_SMOD_REPORTED,              /* ready, and what went wrong with its
					* debug files reported (symbolize.c) */
};

/* The identity of a file opened, from fstat: a file replaced on disk (a
 * new inode, or rewritten in place) differs in one of these. */
struct fk_fileid {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
};

struct fk_symcache_ent;

struct fk_smod {
	const char *path;              /* interned, as in the maps */
	const char *base;              /* short name for "base+0x..." */
	struct fk_symctx *ctx;
	enum fk_smod_state state;
	char *file;                    /* path opened (sysroot applied) */
	char *debug_path;              /* debug file libdwfl was given, or NULL */
	char debug_why[320];           /* a debug file refused, and why, or "" */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Phdr *loads;              /* PT_LOAD headers */
	size_t nloads;
	uint64_t bias;                 /* module address = ELF vaddr + bias */
	const char *build_id;          /* interned lowercase hex, or NULL */
	struct fk_functab funcs;       /* from FK_SMOD_TABLED */
	struct fk_dwline *dw_opened;   /* FK_SMOD_LISTED to _TABLED, or NULL */
	struct fk_dwline *dw;          /* from FK_SMOD_READY, or NULL */
	void *cfi;                     /* unwind table, built on first use */
	struct fk_fileid id;           /* of the file opened (FK_SMOD_OPEN on) */
	struct fk_symcache_ent *centry; /* its cache entry during a call, or NULL */
};

/* What a module gives for an address before any name is interned: the
 * first of its DWARF inline chain (one with a named outermost function),
 * its symbol (with the line table's file:line), or the start of the
 * unwind-table entry holding it (else the address itself). Strings are the
 * module's. */
enum fk_raw_kind { FK_RAW_NONE, FK_RAW_DWARF, FK_RAW_SYMBOL, FK_RAW_START };

struct fk_rawres {
	enum fk_raw_kind kind;         /* FK_RAW_NONE: not looked up */
	int n;                         /* DWARF: frames in dw */
	struct fk_dwframe *dw;         /* DWARF: innermost first, malloc'd */
	const char *sym;               /* SYMBOL: raw symbol name */
	const char *file;              /* SYMBOL: source file, or NULL */
	uint32_t line;
	uint64_t start;                /* START: module address */
};

/* Fills *id from descriptor fd; 0 or -1. */
int fk_smod_fileid(int fd, struct fk_fileid *id);

/* Sets libdwfl's user data of usable m's module to m (after m moved). */
void fk_smod_rehome(struct fk_smod *m);

/* Opens m (FK_SMOD_NEW) once: checks its ELF against the dump's mappings
 * and any known build-id, reports it to libdwfl. Returns 0 (FK_SMOD_OPEN),
 * or, FK_SMOD_BAD, -1 with a reason in why (size n), or -2 when out of
 * memory. */
int fk_smod_open(struct fk_smod *m, char *why, size_t n);

/* Takes the steps of usable module m up to want (at most FK_SMOD_READY).
 * Touches only m: distinct modules may be brought on at once. 0, or -1
 * when out of memory (the step is tried again at the next call) or m is
 * not usable. */
int fk_smod_reach(struct fk_smod *m, enum fk_smod_state want);

/* Looks module address addr of usable module m up into out (kind
 * FK_RAW_NONE when it fails); brings m to FK_SMOD_READY first. Touches
 * only m and out. 0, or -1 when out of memory. */
int fk_smod_lookup(struct fk_smod *m, uint64_t addr, struct fk_rawres *out);

/* Frees what m holds. */
void fk_smod_release(struct fk_smod *m);

/* ---- modmap.c: maps lines to modules and file offsets to addresses ---- */

struct fk_symctx {
	struct fk_profile *p;
	const struct fk_symbolize_opts *o;
	char **debug_dirs;             /* options' folders, then sysroot's /usr/lib/debug */
	size_t ndebug_dirs;
	struct fk_smod *mods;          /* one per distinct file path */
	size_t nmods;
	struct fk_u64map bypath;       /* interned path's address -> index in mods */
	int elf_internals;             /* fk_zsect_internals(), read once */
	struct fk_symcache *cache;     /* o->cache when usable, or NULL */
	unsigned char *own_map;        /* per p->maps index, 1: a view of a file
					  the cache made (fk_symcache_owns),
					  no part of loading; or NULL */
	size_t cache_names;            /* frames kept in the cache this call */
	struct fk_dinfod *dinfod;      /* debuginfod servers, or NULL */
};

/* Creates one module per distinct file path of p's maps. 0 or -1 (ENOMEM). */
int fk_modmap_init(struct fk_symctx *c);

/* Returns the module of a file mapping, or NULL. */
struct fk_smod *fk_modmap_module(struct fk_symctx *c, const struct fk_mapping *m);

/* Reads the PT_LOAD headers of e, the ELF file of m, into m. 0, or -1
 * with a reason in why (size n), or -2 when out of memory. */
int fk_modmap_read_loads(struct fk_smod *m, Elf *e, char *why, size_t n);

/* Checks m's PT_LOAD headers against the dump's mappings of m. 0, or -1
 * with a reason in why (size n). */
int fk_modmap_check(struct fk_smod *m, char *why, size_t n);

/* True when file offset fileoff of m lies inside the bytes of an
 * executable segment (a code address of a file that matches the dump). */
int fk_modmap_in_code(const struct fk_smod *m, uint64_t fileoff);

/* Converts a file offset of m to a module address; 0 or -1 (in no PT_LOAD). */
int fk_modmap_addr(const struct fk_smod *m, uint64_t fileoff, uint64_t *addr);


/* Frees the module list of c (its modules released first, fk_smod_release). */
void fk_modmap_release(struct fk_symctx *c);

/* ---- symcache.c: modules and resolved frames kept between calls ---- */

/* What one address resolves to, before it is stored per key. */
struct fk_symres {
	const struct fk_frame *frames;
	uint32_t nframes;
	unsigned placeholder : 1;
	unsigned alloc : 1;              /* an allocator function's frame */
};

/* Starts a call with options o: empties c when they differ from the last
 * call's, drops the resolved frames when they hold too much (so frames
 * and strings handed out by the last call may be freed here). 0, or -1
 * when out of memory (c is then empty and still usable). */
int fk_symcache_begin(struct fk_symcache *c, const struct fk_symbolize_opts *o);

/* The string table and arena frames of cached modules are made in. */
struct fk_strtab *fk_symcache_strs(struct fk_symcache *c);
struct fk_arena *fk_symcache_arena(struct fk_symcache *c);

/* Gives m (FK_SMOD_NEW, of context m->ctx) the module an entry holds when
 * it matches m's path, file and mappings in m->ctx->p, and returns 1 (m is
 * then usable, m->centry set); 0 when none matches (a stale one is
 * dropped), -1 when out of memory. */
int fk_symcache_take(struct fk_symcache *c, struct fk_smod *m);

/* Makes an entry for m, just opened (usable), to receive it at the end of
 * the call; 0, or -1 when out of memory (m then goes uncached). */
int fk_symcache_track(struct fk_symcache *c, struct fk_smod *m);

/* The frames cached for module address addr of m (m->centry set), or
 * NULL. */
const struct fk_symres *fk_symcache_get(const struct fk_smod *m, uint64_t addr);

/* Keeps res (frames in the cache's arena and strings) for addr of m;
 * 0, or -1 when out of memory (then not kept). */
int fk_symcache_put(struct fk_smod *m, uint64_t addr, const struct fk_symres *res);

/* Ends a call: every module of ctx with an entry goes back to the cache
 * (usable ones) or is released (those found unusable during the call);
 * their slots in ctx are emptied. Then evicts down to the budget. */
void fk_symcache_end(struct fk_symcache *c, struct fk_symctx *ctx);

/* ---- modpool.c: looks addresses up on a few threads ---- */

/* An address to look up in a usable module (a module address), and where
 * its result goes. */
struct fk_modaddr {
	struct fk_smod *mod;
	uint64_t addr;
	struct fk_rawres *out;
};

/* Looks every address up into its out, on up to as many threads as CPUs
 * (at most 4), each module on one thread at a time, after building what
 * its modules need (DWARF index, unit tables, symbol table, unwind table).
 * Touches nothing but the modules and the results; each thread it starts
 * first calls o->thread_start (o may be NULL). A lookup that fails for
 * want of memory leaves its result FK_RAW_NONE. 0, or -1 when out of
 * memory (nothing done). */
int fk_modpool_lookup(const struct fk_modaddr *addrs, size_t naddrs,
		      const struct fk_symbolize_opts *o);

#endif
