/* SPDX-License-Identifier: MIT */
/* Every bound flamekit puts on its input, with the reason for it. Code that
 * reads untrusted data checks against these and nothing else. */
#ifndef FK_LIMITS_H
#define FK_LIMITS_H

/* Whole input file. Real dumps of large services are tens of MB; 4 GiB keeps
 * every offset in 32 bits of headroom below size_t on any 64-bit host. A
 * stream (a pipe, a device) is held to the same bound while it is read:
 * never more than this and a page in memory (core/io.c). */
#define FK_MAX_INPUT        ((size_t)4 << 30)

/* One text line. jemalloc 5.3.0 writes at most 128 frames of "0x" + 16 hex
 * digits plus spaces (about 2.4 KB), 5.3.1 as many as prof_bt_max (3400
 * frames fill 64 KiB; the reader keeps FK_MAX_DEPTH of them);
 * /proc/PID/maps lines carry a path of at most PATH_MAX (4096). 64 KiB
 * leaves room for long folded stacks and C++ names. */
#define FK_MAX_LINE         (64 * 1024)

/* Folded stacks can be much longer than dump lines (deep C++ stacks with
 * template names): 16 MiB per line. */
#define FK_MAX_FOLDED_LINE  (16 * 1024 * 1024)
/* Value columns of one multi-column folded input ("# columns: ..."): the
 * four heap sample types, the two sides of a diff, or the snapshots of a
 * series (heap-series, the hook's timeline), one column each. A day of
 * snapshots every five minutes is 288; render-flame keeps 8 bytes per
 * column per frame and the page 16, so 512 columns of a 50k-frame tree
 * cost about 200 MB in render-flame and 400 MB in the browser, the most a
 * page should ask of a laptop. */
#define FK_MAX_COLUMNS      512
#define FK_MAX_COLUMN_NAME  64
/* What heap-series' module cache may hold while a series is read: the
 * modules of a large program and its libraries with their DWARF indexes. */
#define FK_SERIES_CACHE_BYTES ((size_t)512 << 20)

/* Frames kept of one stack of a dump or a lifetimes record. jemalloc 5.3.0
 * writes at most 128 (PROF_BT_MAX); 5.3.1's prof_bt_max takes any depth
 * (256 at most in a build on gcc's __builtin_return_address), gperftools'
 * 64 (254 in newer builds). A deeper stack keeps its FK_MAX_DEPTH innermost
 * frames and a [truncated] root, never refused: jemalloc's own jeprof reads
 * such dumps. Raising this from 128 to 1024 costs nothing measurable on
 * dumps of usual depth (the frames are stored at their own depth; a read
 * needs 8 KiB of stack): bench/README.md, "Deep stacks". A stack of
 * exactly FK_JE_BT_DEFAULT frames was cut at jemalloc's default depth,
 * unless the dump holds a deeper one (core/heapdump.c).
 * Folded and pprof inputs from other profilers can be deeper, so readers of
 * those formats use FK_MAX_DEPTH_ANY. */
#define FK_MAX_DEPTH        1024
#define FK_JE_BT_DEFAULT    128
#define FK_MAX_DEPTH_ANY    4096

/* Distinct stacks in one dump: a 10M-stack dump would be gigabytes. */
#define FK_MAX_STACKS       (10 * 1000 * 1000)

/* Records of a lifetimes record (life.h): the hook's largest
 * FLAMEKIT_RECENT; and how deep the JSON's values may nest (jemalloc's
 * nest two deep; a later field is skipped, whatever it holds). */
#define FK_LIFE_MAX_RECORDS (16 * 1024 * 1024)
#define FK_LIFE_MAX_NEST    32

/* jemalloc's statistics (jestats.h): size classes of one kind, small or
 * large (5.3 has 36 small and 196 large with 4 KiB pages, more with
 * larger pages or quanta; its size-class table stops near 232); and how
 * deep malloc_stats_print's JSON nests (five levels in 5.3: a bin's
 * mutex figures). */
#define FK_JESTATS_MAX_CLASSES 512
#define FK_JESTATS_MAX_NEST    32
/* One slab's bytes (jemalloc 5.3's largest is a few pages; 4 GiB bounds
 * every nregs * size) and one class's slabs (2^31 slabs of 4 GiB are far
 * past any address space), so that slabs * slab_size fits in 64 bits. */
#define FK_JESTATS_MAX_SLAB    (1ULL << 32)
#define FK_JESTATS_MAX_SLABS   (1ULL << 31)

/* Threads with their own tN: lines in one dump. */
#define FK_MAX_THREADS      (1000 * 1000)

/* Lines of MAPPED_LIBRARIES: Linux's default vm.max_map_count is 65530;
 * allow four times that for tuned hosts. */
#define FK_MAX_MAPPINGS     (256 * 1024)

/* Inline depth of one address; real chains rarely pass 20. */
#define FK_MAX_INLINE       64

/* Recursion over DWARF DIE trees. */
#define FK_MAX_DIE_DEPTH    256

/* Length of one symbol or file name we keep (also of a demangled name). */
#define FK_MAX_NAME         (64 * 1024)

/* Paths of files a dump names, resolved under a sysroot: Linux's PATH_MAX
 * (4096) for the result, twice that while a symbolic link's text is spliced
 * in; and the links followed for one path, Linux's own bound (40, ELOOP). */
#define FK_MAX_PATH         8192
#define FK_MAX_SYMLINKS     40

/* Compressed ELF sections (SHF_COMPRESSED, .zdebug_*) of one file, all
 * together, may claim at most this many times the file's size once
 * inflated, or 64 MiB if more. zlib'd DWARF inflates a few times
 * (libc6-dbg's debug files claim 2 to 13 times their whole size, measured
 * here); deflate itself reaches 1032:1, so a 3 MB file could make 3 GiB.
 * A file claiming more is refused with a warning, as other unusable
 * modules are. */
#define FK_MAX_ZSECT_RATIO  32
#define FK_MAX_ZSECT_FLOOR  ((size_t)64 << 20)

/* MiniDebugInfo (.gnu_debugdata, xz) counts toward the same bound: libdwfl
 * inflates it with no limit of its own (xz reaches 7000:1), so symbolize
 * inflates it once first, counting, and stops past the bound. The decoder
 * may use 128 MiB (xz -9 needs 65 MiB); a stream needing more is refused. */
#define FK_MAX_XZ_MEMORY    ((size_t)128 << 20)

/* A gzip'd pprof profile inflated (from-pprof): profiles of large services
 * are a few MB of protobuf (our 12k-stack gcc dump makes under 2 MB); 128
 * MiB is millions of samples. Checked while inflating, so a gzip bomb
 * (deflate reaches 1032:1) stops at the bound instead of filling memory. */
#define FK_MAX_PPROF_INFLATED ((size_t)128 << 20)

/* Folded text one run writes (to-folded, from-pprof), counting each line
 * with the widest value: each line repeats its whole stack, so a 270 KB
 * pprof of deep, distinct stacks can print a gigabyte, all held in memory
 * until it is sorted. 128 MiB is beyond what a flame graph can show (an
 * 86 MB file of 100k stacks takes flamegraph.pl 13 s). */
#define FK_MAX_FOLDED_OUTPUT ((size_t)128 << 20)

/* Sum of a profile's values (each unbiased, taken without sign), per kind
 * (objects, bytes, and their accumulated forms) and separately for the
 * per-thread lines: 2^62. Every merged line (a folded stack, a pprof
 * sample, a function's total) sums a subset, so it fits in the int64 of
 * every format with room left for rounding, and every stage accepts or
 * rejects the same dump where it is read. Real totals are far below: 2^62
 * bytes is 4 EiB. */
#define FK_MAX_TOTAL_LG     62

/* Seconds one debuginfod query may take in all (symbolize/debuginfod.c):
 * the cache, connecting, asking each server in turn and the transfer,
 * unless DEBUGINFOD_TIMEOUT says otherwise: a server on the same
 * continent answers in well under a second, and the hook's request must
 * not wait minutes; a large file over a slow link needs more. curl ends
 * a transfer at what is left of it (CURLOPT_TIMEOUT_MS), however the
 * server drips (libdebuginfod's own timeout only asks for 100 KiB per
 * 90 s, and curl's connect timeout is 300 s). DEBUGINFOD_TIMEOUT is taken
 * up to an hour. */
#define FK_DEBUGINFOD_TIMEOUT      10
#define FK_MAX_DEBUGINFOD_TIMEOUT  3600

/* Bytes of one debug file from a debuginfod server, unless
 * DEBUGINFOD_MAXSIZE says otherwise: the whole-input bound, FK_MAX_INPUT
 * (libwebkitgtk's debug file is over 3 GB, the debuginfod project wrote
 * in 2024). Counted as written to the cache, not as received: curl
 * inflates a gzip'd body (1000:1 for zeros) and hands our write callback
 * at most CURL_MAX_WRITE_SIZE (16 KiB) at a time, which stops the
 * transfer before the byte that would pass the bound: a file cut has at
 * most this many bytes on disk, then none. A length announced past the
 * bound is an answer, as libdebuginfod takes one over
 * DEBUGINFOD_MAXSIZE: nothing more is received. */
#define FK_MAX_DEBUGINFOD_FILE     FK_MAX_INPUT

/* debuginfod servers asked, the first of DEBUGINFOD_URLS (each in turn,
 * within the one deadline: more could not all be asked anyway), and the
 * redirects followed from one (curl's default was unlimited before 8.3;
 * a debuginfod federation redirects once or twice). */
#define FK_MAX_DEBUGINFOD_SERVERS    16
#define FK_MAX_DEBUGINFOD_REDIRECTS  8

/* Sampling period: jemalloc's lg_prof_sample is at most 63. */
#define FK_MAX_PERIOD_LG    63

/* Budget lines of one heap-check budget file: each is matched against every
 * frame of every stack, so 10 000 lines over a 12k-stack dump of depth 50
 * is already billions of fnmatch calls; real budgets have tens. */
#define FK_MAX_BUDGET_LINES 10000

/* A page's origin (render/pageinfo.c): "# info: KEY=VALUE" lines at the
 * start of a folded input and the hook's, together. A header names a
 * program, pid, host, time and sampling in a few; 64 keep the page's
 * header a header. A key is a word, a value a line (a program's path and
 * arguments). */
#define FK_MAX_INFO_LINES   64
#define FK_MAX_INFO_KEY     32
#define FK_MAX_INFO_VALUE   1024

#endif
