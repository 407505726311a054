/* Every bound flamekit puts on its input, with the reason for it. Code that
 * reads untrusted data checks against these and nothing else. */
#ifndef FK_LIMITS_H
#define FK_LIMITS_H

/* Whole input file. Real dumps of large services are tens of MB; 4 GiB keeps
 * every offset in 32 bits of headroom below size_t on any 64-bit host. */
#define FK_MAX_INPUT        ((size_t)4 << 30)

/* One text line. jemalloc writes at most 128 frames of "0x" + 16 hex digits
 * plus spaces (about 2.4 KB); /proc/PID/maps lines carry a path of at most
 * PATH_MAX (4096). 64 KiB leaves room for long folded stacks and C++ names. */
#define FK_MAX_LINE         (64 * 1024)

/* Folded stacks can be much longer than dump lines (deep C++ stacks with
 * template names): 16 MiB per line. */
#define FK_MAX_FOLDED_LINE  (16 * 1024 * 1024)
/* Value columns of one multi-column folded input ("# columns: ..."): the
 * four heap sample types, the two sides of a diff, a few snapshots. */
#define FK_MAX_COLUMNS      16
#define FK_MAX_COLUMN_NAME  64

/* Frames in one stack. jemalloc's PROF_BT_MAX is 128; gperftools uses 64.
 * Folded and pprof inputs from other profilers can be deeper, so readers of
 * those formats use FK_MAX_DEPTH_ANY. */
#define FK_MAX_DEPTH        128
#define FK_MAX_DEPTH_ANY    4096

/* Distinct stacks in one dump: a 10M-stack dump would be gigabytes. */
#define FK_MAX_STACKS       (10 * 1000 * 1000)

/* Threads with their own tN: lines in one dump. */
#define FK_MAX_THREADS      (1000 * 1000)

/* Lines of MAPPED_LIBRARIES: Linux's default vm.max_map_count is 65530;
 * allow four times that for tuned hosts. */
#define FK_MAX_MAPPINGS     (256 * 1024)

/* Inline depth of one address; real chains rarely pass 20. */
#define FK_MAX_INLINE       64

/* Recursion over DWARF DIE trees. */
#define FK_MAX_DIE_DEPTH    256

/* Length of one symbol or file name we keep. */
#define FK_MAX_NAME         (64 * 1024)

/* Rust v0 names (symbolize/rustsym.c): nesting of paths, types, consts and
 * back references in one name (real names nest a few dozen levels; a back
 * reference pointing into its own element only ends here); productions
 * visited for one name (back references let a short name print long text:
 * output is capped by FK_MAX_NAME, this caps names that revisit much and
 * print little); code points of one Punycode identifier (decoding is
 * quadratic; no Rust identifier comes near). */
#define FK_MAX_RUST_DEPTH    256
#define FK_MAX_RUST_STEPS    (1u << 20)
#define FK_MAX_RUST_PUNYCODE 1024

/* Sampling period: jemalloc's lg_prof_sample is at most 63. */
#define FK_MAX_PERIOD_LG    63

#endif
