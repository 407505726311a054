/* SPDX-License-Identifier: MIT */
/* Declarations shared by the files of encode/ (libfkenc.a) and nothing
 * else: gzip, the id and address tables, the folded-line accumulator and
 * the naming of addresses no symbol covers. */
#ifndef FK_ENCODE_INT_H
#define FK_ENCODE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "json_enc.h"
#include "u64map.h"
#include "profile.pb-c.h"            /* generated from profile.proto into $(B) */

/* ---- gzbuf.c: whole-buffer gzip (RFC 1952) through zlib ---- */

/* Compresses data[0..len) into a gzip member with mtime 0 and no name, so
 * equal input gives equal bytes. *out is malloc'd; the caller frees it.
 * Returns 0, or -1 with err. */
int fk_gz_compress(const void *data, size_t len, int level,
		   unsigned char **out, size_t *outlen, struct fk_err *err);

/* A piece of a gzip member's data compressed apart (raw deflate), so that
 * the member can be put together from pieces made at different times: one
 * made once and kept, one made for each copy (fk_pprof_stamp). */
struct fk_gz_piece {
	unsigned char *z;              /* malloc'd deflate blocks */
	size_t zlen;
	size_t len;                    /* the data's length */
	uint32_t crc;                  /* its CRC-32 */
	int level;                     /* zlib's, as it was compressed */
};

/* Compresses data[0..len) into *pc: ending on a byte boundary with more
 * to come, or (last) with the final block. Returns 0, or -1 with err. */
int fk_gz_piece(const void *data, size_t len, int level, int last,
		struct fk_gz_piece *pc, struct fk_err *err);

/* One gzip member (mtime 0, as fk_gz_compress) of pieces pc[0..n), the
 * last made with last set, into a malloc'd *out. Returns 0, or -1 with err. */
int fk_gz_join(const struct fk_gz_piece *pc, size_t n, unsigned char **out,
	       size_t *outlen, struct fk_err *err);

/* True when data starts with the gzip magic bytes. */
int fk_gz_is_gzip(const void *data, size_t len);

/* Decompresses all gzip members of data[0..len) into a malloc'd buffer of
 * at most max bytes (*out, *outlen). Returns 0, or -1 with err on corrupt,
 * truncated or too large input. */
int fk_gz_decompress(const void *data, size_t len, size_t max,
		     unsigned char **out, size_t *outlen, struct fk_err *err);

/* ---- foldacc.c: folded lines, merged, sorted, written at once ---- */

struct fk_foldacc;

/* Returns a new empty accumulator, or NULL when out of memory. */
struct fk_foldacc *fk_foldacc_new(void);

/* Frees acc. NULL is a no-op. */
void fk_foldacc_free(struct fk_foldacc *acc);

/* Starts a new stack. Frames are then given root first with
 * fk_foldacc_frame and the stack is ended by fk_foldacc_end. */
void fk_foldacc_begin(struct fk_foldacc *acc);

/* Appends frame name (NUL-terminated) to the current stack, escaped as
 * fk_folded_put_frame does so a name stays one frame of one line.
 * Returns 0, or -1 with err (out of memory, or the line would exceed
 * FK_MAX_FOLDED_LINE). */
int fk_foldacc_frame(struct fk_foldacc *acc, const char *name, struct fk_err *err);

/* Appends n bytes of already escaped frames s (one or more joined by ';',
 * as fk_foldacc_escape makes them) to the current stack. Returns 0, or -1
 * with err as fk_foldacc_frame. */
int fk_foldacc_frames(struct fk_foldacc *acc, const char *s, size_t n, struct fk_err *err);

/* Writes name[0..n) escaped as fk_foldacc_frame would into dst (n bytes
 * of room). */
void fk_foldacc_escape(char *dst, const char *name, size_t n);

/* A cache of escaped frame text by a 64-bit key: encoders meet the same
 * address in thousands of stacks and name it once. */
struct fk_namecache {
	struct fk_u64map ix;           /* key -> entry */
	size_t *off, *len;             /* entries, into pool */
	size_t n, cap;
	char *pool;
	size_t poollen, poolcap;
};

/* Prepares an empty cache. */
void fk_namecache_init(struct fk_namecache *c);

/* Frees the cache. */
void fk_namecache_release(struct fk_namecache *c);

/* Returns the cached text of key (*n bytes; valid until the next add), or
 * NULL when absent. */
const char *fk_namecache_get(const struct fk_namecache *c, uint64_t key, size_t *n);

/* Where a frame's names come from, for fk_namecache_text, asked only
 * when the frame is not cached yet: open(ctx) returns how many names its
 * inline chain has, name(ctx, j) the name of the j-th, innermost first
 * (NULL when it has none), and, when none has one, addr(ctx, buf, size)
 * the text that stands for it (in buf or not). */
struct fk_namesrc {
	size_t (*open)(void *ctx);
	const char *(*name)(void *ctx, size_t j);
	const char *(*addr)(void *ctx, char *buf, size_t size);
	void *ctx;
};

/* Returns the text of key (*n bytes; valid until the next call), making
 * it from src the first time: the named frames outermost first, escaped
 * (fk_foldacc_escape) and joined by ';', or the address text as it is.
 * NULL when out of memory. */
const char *fk_namecache_text(struct fk_namecache *c, uint64_t key,
			      const struct fk_namesrc *src, size_t *n);

/* Ends the current stack and adds value to the total of its line (equal
 * lines merge). A stack with no frames is named FK_ENC_NO_STACK. Returns 0,
 * or -1 with err (out of memory, or overflow of the total). */
int fk_foldacc_end(struct fk_foldacc *acc, int64_t value, struct fk_err *err);

/* Makes acc hold ncols values a line (the multi-column folded extension,
 * man/render-flame.1); call before the first stack. Returns 0, or -1 when
 * stacks were added or ncols is not 1..FK_MAX_COLUMNS. */
int fk_foldacc_columns(struct fk_foldacc *acc, size_t ncols);

/* fk_foldacc_end with one value per column (values[0..ncols)). */
int fk_foldacc_endv(struct fk_foldacc *acc, const int64_t *values, struct fk_err *err);

/* Writes every line whose total is not zero (in some column), sorted
 * bytewise, as "root;...;leaf VALUE...\n". Returns 0, or -1 with err on a
 * write error. */
int fk_foldacc_write(struct fk_foldacc *acc, FILE *out, struct fk_err *err);

/* Adds to acc (made with ncols columns) every stack of p once, its value
 * in column k what fk_folded_write gives it (unbiased in-use bytes,
 * rounded alike) after set(ctx, k, p) has given p's stacks the counts of
 * snapshot k: a series folded in one naming pass. Stacks with no value in
 * any column are left out. Returns 0, or -1 with err. */
struct fk_profile;
int fk_folded_series(struct fk_profile *p, uint32_t ncols,
		     void (*set)(void *ctx, uint32_t k, struct fk_profile *p), void *ctx,
		     struct fk_foldacc *acc, struct fk_err *err);

/* The frame of a sample or stack that has no frames at all (a bare "@"
 * line in a dump, a pprof sample without locations). */
#define FK_ENC_NO_STACK "[no stack]"

/* ---- addrname.c: names for addresses that no symbol covers ---- */

/* Writes into buf (size bytes) the name of an unresolved address addr:
 * "BASENAME+0xOFFSET" with OFFSET = addr - start + file_offset when the
 * address lies in a mapping of file path (BASENAME as fk_maps_basename
 * gives it, "[anon]" for ""), or "[anon]+0xADDR" when path is NULL (no
 * mapping). to-folded and from-pprof name the same address alike, so
 * `to-pprof | from-pprof` equals `to-folded`. Returns buf. */
char *fk_enc_addr_name(char *buf, size_t size, const char *path,
		       uint64_t start, uint64_t file_offset, uint64_t addr);

struct fk_profile;
struct fk_mapping;
struct fk_stack;

/* The mapping an encoder attributes address addr to: the dump's mapping
 * holding it, except anonymous memory (no file: JIT code), which counts as
 * no mapping, since pprof wants a file name for every mapping it is given.
 * NULL when none. */
const struct fk_mapping *fk_enc_map_of(const struct fk_profile *p, uint64_t addr);

/* fk_enc_addr_name for address addr of profile p, through fk_enc_map_of. */
char *fk_enc_profile_addr_name(char *buf, size_t size, const struct fk_profile *p,
			       uint64_t addr);

/* ---- round.c: unbiased values to integers ---- */

/* Rounds v to the nearest integer, ties away from zero, clamped to the
 * int64 range; NaN gives 0. */
int64_t fk_enc_round(double v);

/* Unbiased values are fractional but pprof and folded values are integers.
 * Rounding each stack on its own is biased (a 64-byte object at period 4096
 * unbiases to 64.5 objects, always rounded up: +0.8 % on real dumps), so
 * encoders carry the rounding error from one stack to the next among the
 * stacks with the same leaf function: each gets round(sum so far) -
 * round(sum before it). The flat value of every function, which is what
 * `jeprof --text` and `pprof -top` list, is then exact to within 0.5, and
 * totals to within 0.5 a function. Every encoder visits the same stacks in
 * the same order (input order; threads in input order), so all formats give
 * each stack the same integer. */
struct fk_enc_rounder {
	double exact;                  /* sum of the values seen */
	int64_t emitted;               /* sum of the integers returned */
};

/* Returns the integer for the next stack's value v (0 stays 0). */
int64_t fk_enc_round_next(struct fk_enc_rounder *r, double v);

/* Rounders grouped by leaf function, width of them per group (one per
 * value type). */
struct fk_enc_rounders {
	struct fk_u64map ix;           /* leaf key -> group index */
	struct fk_enc_rounder *r;
	size_t n, cap, width;
};

/* Prepares an empty set of groups of width rounders. */
void fk_enc_rounders_init(struct fk_enc_rounders *rs, size_t width);

/* Frees the groups. */
void fk_enc_rounders_release(struct fk_enc_rounders *rs);

/* Returns the width rounders of the leaf function of stack s of p (the
 * innermost frame's name when resolved, else the leaf address), or NULL
 * when out of memory. */
struct fk_enc_rounder *fk_enc_rounders_of(struct fk_enc_rounders *rs,
					  const struct fk_profile *p,
					  const struct fk_stack *s);

/* ---- pprof_limit.c: at most a number of samples ---- */

struct fk_arena;
struct fk_limit_memo;

/* When *n > max (> 0), replaces *smps (malloc'd) by at most max samples
 * with the same total of every value: the lightest (by |value[wix]|)
 * are merged into the deepest prefix of their stack that a kept heavier
 * stack shares, or cut to their root frame (see pprof_limit.c). Merged
 * samples lose their labels; new samples' values live in a. *merged gets
 * the number of input samples merged (0 when nothing was done). Their
 * location arrays point into the input's. Returns 0, or -1 when out of
 * memory (*smps unchanged). */
int fk_enc_limit_samples(Perftools__Profiles__Sample **smps, size_t *n, size_t max,
			 size_t wix, struct fk_arena *a, struct fk_limit_memo *memo,
			 size_t *merged);

/* The trie of the last call, kept for the next when its stacks are the
 * same (memo above; NULL keeps nothing): at most budget bytes. */
struct fk_limit_memo *fk_enc_limit_memo_new(size_t budget);
void fk_enc_limit_memo_free(struct fk_limit_memo *m);
size_t fk_enc_limit_memo_bytes(const struct fk_limit_memo *m);

/* What fk_pprof_memo_new (pprof_enc.h) makes. */
struct fk_pprof_memo {
	struct fk_limit_memo *limit;
};

/* ---- pprof_enc.c: the pprof message ---- */

struct fk_profile;
struct fk_pprof_opts;

/* The profile message of p (o NULL: the defaults), packed, into a
 * malloc'd *plain of *plainlen bytes. Returns 0, or -1 with err set. */
int fk_enc_pprof_pack(const struct fk_profile *p, const struct fk_pprof_opts *o,
		      unsigned char **plain, size_t *plainlen, struct fk_err *err);

/* ---- pprof_dec.c: a decoded, validated pprof profile ---- */

struct fk_pprof {
	Perftools__Profiles__Profile *msg;  /* as unpacked by protobuf-c */
	char **strs;                   /* string_table, NUL-terminated copies */
	size_t nstrs;
	char *pool;                    /* storage of strs */
	struct fk_u64map mapix;        /* mapping id -> index in msg->mapping */
	struct fk_u64map locix;        /* location id -> index */
	struct fk_u64map funix;        /* function id -> index */
};

/* ---- legacy_build.c: a pprof profile made from a legacy one ---- */

/* The legacy readers (google/pprof profile/legacy_profile.go's formats)
 * give their samples to a builder, which packs the profile.proto message
 * that fk_pprof_read then decodes and checks like any other. */
struct fk_lb;

/* Returns a new empty builder, or NULL when out of memory. */
struct fk_lb *fk_lb_new(void);

/* Frees b. NULL is a no-op. */
void fk_lb_free(struct fk_lb *b);

/* Adds a sample type (before the first sample). Returns 0, or -1 with err. */
int fk_lb_type(struct fk_lb *b, const char *name, const char *unit, struct fk_err *err);

/* Sets the period type, the period and the duration. Returns 0 or -1. */
int fk_lb_period(struct fk_lb *b, const char *type, const char *unit, int64_t period,
		 int64_t duration_nanos, struct fk_err *err);

/* Adds a sample: one value per sample type (values[0..ntypes)), its n
 * addresses leaf first, one location per distinct address, and the numeric
 * label "bytes" when bytes >= 0. Returns 0, or -1 with err at line. */
int fk_lb_sample(struct fk_lb *b, const int64_t *values, const uint64_t *addrs, size_t n,
		 int64_t bytes, uint64_t line, struct fk_err *err);

/* The number of samples so far, and a pointer to the values of sample i. */
size_t fk_lb_nsamples(const struct fk_lb *b);
int64_t *fk_lb_values(struct fk_lb *b, size_t i);

/* The addresses of sample i (*n of them, leaf first), writable: readers
 * that drop frames (the CPU profiler's own) rewrite them in place. */
uint64_t *fk_lb_addrs(struct fk_lb *b, size_t i, size_t *n);

/* Cuts sample i to its first n addresses (n no more than it has). */
void fk_lb_set_depth(struct fk_lb *b, size_t i, size_t n);

/* Names the location of address addr, if some sample has it: function
 * name[0..nlen), file[0..flen) (flen 0: none), line (0: none); the location
 * then has no address (Java's locations are names). Returns 0 or -1. */
int fk_lb_name(struct fk_lb *b, uint64_t addr, const char *name, size_t nlen,
	       const char *file, size_t flen, int64_t line, struct fk_err *err);

/* Reads a memory map section s[0..n) (the forms of core's
 * fk_maps_parse_pprof, lines numbered from first_line) and keeps its
 * executable mappings. Returns 0, or -1 with err. */
int fk_lb_maps(struct fk_lb *b, const char *s, size_t n, uint64_t first_line,
	       struct fk_err *err);

/* Attributes every location to the kept mapping holding its address,
 * packs the message and decodes it into *out (fk_pprof_read). Returns 0,
 * or -1 with err. */
int fk_lb_finish(struct fk_lb *b, uint8_t **out, size_t *outlen,
		    struct fk_err *err);

/* ---- legacy_text.c: lines and addresses of the legacy text formats ---- */

struct fk_lines {
	const char *cur, *end;
	uint64_t lineno;
	struct fk_err *err;
};

/* Starts reading data[0..len) line by line. */
void fk_lines_init(struct fk_lines *l, const char *data, size_t len, struct fk_err *err);

/* A text reader's start: fk_lines_init, a new builder in *b and a buffer
 * of FK_MAX_DEPTH_ANY addresses in *addrs, which the caller frees with
 * fk_lines_end, after a failure too. Returns 0, or -1 with err (out of
 * memory). */
int fk_lines_begin(struct fk_lines *l, const char *data, size_t len, struct fk_lb **b,
		   uint64_t **addrs, struct fk_err *err);

/* Frees what fk_lines_begin made (either may be NULL). */
void fk_lines_end(struct fk_lb *b, uint64_t *addrs);

/* The next line, blanks (and a '\r') trimmed at both ends, into *s, *n:
 * returns 1, 0 at the end, -1 with err (a line longer than FK_MAX_LINE,
 * a NUL byte). */
int fk_lines_next(struct fk_lines *l, const char **s, size_t *n);

/* The rest of the input after the current line, and its first line's
 * number. */
const char *fk_lines_rest(const struct fk_lines *l, size_t *n, uint64_t *first_line);

/* Every "0x[0-9a-f]+" of s[0..n) (as pprof's parseHexAddresses finds
 * them) into addrs (at most FK_MAX_DEPTH_ANY), *count of them. Returns 0,
 * or -1 with err at l's line (more than 64 bits, too many). */
int fk_lines_hexes(struct fk_lines *l, const char *s, size_t n, uint64_t *addrs,
		   size_t *count);

/* True when s[0..n) starts with, or holds, the string p. */
int fk_lines_starts(const char *s, size_t n, const char *p);
int fk_lines_contains(const char *s, size_t n, const char *p);

/* The value v[0..vn) of the attribute line s[0..n): decimal digits of at
 * most max into *out. 0, or -1 with err at l's line ("bad attribute
 * value 'LINE'"). */
int fk_lines_attr(struct fk_lines *l, const char *s, size_t n, const char *v, size_t vn,
		  int64_t max, int64_t *out);

/* Sets err at l's line to "WHAT 'TEXT'" and returns -1. */
int fk_lines_bad(struct fk_lines *l, const char *what, const char *s, size_t n);

/* True when s[0..n) holds one of pprof's memory map markers
 * ("--- Memory map: ---", "MAPPED_LIBRARIES:"). */
int fk_lines_is_maps(const char *s, size_t n);

/* Skips to the memory map marker, if any, and gives what follows to
 * fk_lb_maps (pprof's parseAdditionalSections). Returns 0 or -1. */
int fk_lines_maps(struct fk_lines *l, struct fk_lb *b);

/* A text reader's end: r, s, n as its last fk_lines_next left them (r > 0
 * at the line that ended the samples). Reads the memory map section there
 * or after it, then packs the message (fk_lb_finish). 0, or -1 with err. */
int fk_lines_finish(struct fk_lines *l, int r, const char *s, size_t n, struct fk_lb *b,
		    uint8_t **out, size_t *outlen, struct fk_err *err);

/* ---- the legacy readers: data[0..len) into a packed profile.proto
 * message *out (malloc'd, *outlen bytes); 0, or -1 with err ---- */

/* legacy_heap.c: "heap profile: ..." (heap_v2, heapz_v2, heap, heapprofile,
 * growthz) through core's dump readers, valued as Go's parseHeap does. */
int fk_legacy_heap(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err);

/* legacy_cpu.c: the CPU profiler's binary format (C++ and Java). True
 * when data starts with its header. */
int fk_legacy_is_cpu(const unsigned char *data, size_t len);
int fk_legacy_cpu(const unsigned char *data, size_t len, uint8_t **out,
		  size_t *outlen, struct fk_err *err);

/* legacy_contention.c: "--- contentionz", "--- mutex:", "--- contention:". */
int fk_legacy_contention(const char *data, size_t len, uint8_t **out,
			 size_t *outlen, struct fk_err *err);

/* legacy_thread.c: "--- threadz N ---" and "--- Thread ..." stacks. */
int fk_legacy_thread(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err);

/* legacy_count.c: Go's "NAME profile: total N" (goroutine, threadcreate). */
int fk_legacy_count(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err);

/* The length of NAME when s[0..n) is "NAME profile: total N", else 0. */
size_t fk_legacy_count_header(const char *s, size_t n);

/* legacy_java.c: Java's "--- heapz 1 ---" and "--- contentionz 1 ---"
 * with "format = java"; and the location names after Java's samples
 * (also those of a Java CPU profile), from data[0..len) numbered from
 * first_line, given to b. */
int fk_legacy_is_java(const char *data, size_t len);
int fk_legacy_java(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err);
int fk_legacy_java_names(struct fk_lb *b, const char *data, size_t len, uint64_t first_line,
			 struct fk_err *err);

/* legacy.c: which legacy format data is, and its reader. Returns 1 with
 * *out, *outlen when data is a legacy profile, 0 when it is not one
 * (pprof's protobuf then), -1 with err when it is one and malformed. */
int fk_legacy_read(const void *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err);

/* ---- json_enc.c: pieces of the JSON views ---- */


/* Writes the frames of s, root first, as a JSON array of names (inline
 * frames expanded; an unresolved address as "module+0xOFFSET"); the
 * leaf's name into *leaf (valid until the next call). */
void fk_enc_json_stack(FILE *f, const struct fk_profile *p, const struct fk_stack *s,
		       const char **leaf);

#endif
