/* SPDX-License-Identifier: MIT */
/* Which frames belong to the allocator rather than to the program: every
 * frame of a libjemalloc mapping (Debian's is stripped, so its frames have
 * no trustworthy names), the allocation entry points of C, C++ and
 * jemalloc's own API, jemalloc's internals for a statically linked
 * jemalloc (jeprof 5.3.1's list, src/jeprof.in, extended), and Rust's
 * allocation path from its collections down to malloc. One table: symbolize
 * drops these frames with fk_alloc_is_frame, and to-pprof, when they are
 * kept, gives pprof the same rules as a drop_frames regex. */
#include <stdio.h>
#include <string.h>

#include "allocframes.h"

static const char *const entry_points[] = {
	/* C and POSIX */
	"malloc", "calloc", "realloc", "reallocarray", "free", "cfree",
	"memalign", "posix_memalign", "aligned_alloc", "valloc", "pvalloc",
	/* jemalloc's non-standard API */
	"mallocx", "rallocx", "xallocx", "dallocx", "sdallocx", "nallocx",
	"smallocx",
	/* jemalloc internals that show up when it is linked statically */
	"malloc_default", "imalloc", "imalloc_body", "prof_alloc_prep",
	"prof_backtrace", "prof_backtrace_impl", "prof_tctx_create",
	"irallocx_prof", "do_rallocx", "ixallocx_prof", "ialloc",
	"arena_malloc", "tcache_alloc_small", "tcache_alloc_large",
	/* glibc's own names for the same entry points */
	"__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_memalign",
	"__libc_valloc", "__libc_pvalloc", "__posix_memalign",
};

/* Rust's way to malloc, whose every frame is the allocator's rather than
 * the program's (the program's call is the Vec, String, Box or HashMap
 * method it made, or its own function when that was inlined):
 * - the shims rustc generates, which call the #[global_allocator]
 *   (__rg_*) or the default System allocator (__rdl_*); since Rust 1.88
 *   they are v0 names under the pseudo-crate "__rustc";
 * - the alloc crate's allocation functions, the Global allocator, and
 *   RawVec, the private buffer under Vec, String and VecDeque that grows
 *   them (alloc::raw_vec::finish_grow, RawVecInner::try_allocate_in);
 * - the System allocator's unix implementation, wherever the standard
 *   library kept it over the years.
 * As the display names of both manglings: v0 "<alloc::alloc::Global as
 * core::alloc::Allocator>::allocate", "<alloc::raw_vec::RawVecInner>::
 * grow_one", legacy "alloc::raw_vec::RawVecInner<A>::grow_one". */
static const char *const rust_shims[] = {
	"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc",
	"__rdl_alloc", "__rdl_alloc_zeroed", "__rdl_realloc",
	"__rg_alloc", "__rg_alloc_zeroed", "__rg_realloc",
};

static const char *const rust_prefixes[] = {
	"alloc::alloc::", "<alloc::alloc::", "alloc::raw_vec::", "<alloc::raw_vec::",
	"std::sys::alloc::", "std::sys::pal::unix::alloc::", "std::sys::unix::alloc::",
};

/* Methods of an allocator trait implementation, whatever the allocator
 * (a #[global_allocator] such as tikv-jemallocator's, System, bumpalo):
 * "<X as core::alloc::global::GlobalAlloc>::alloc", legacy
 * "x::<impl core::alloc::global::GlobalAlloc for x::X>::alloc".
 * Deallocation is never on an allocation's stack. */
static const struct {
	const char *trait, *method;
} rust_trait_methods[] = {
	{ "core::alloc::global::GlobalAlloc", "alloc" },
	{ "core::alloc::global::GlobalAlloc", "alloc_zeroed" },
	{ "core::alloc::global::GlobalAlloc", "realloc" },
	{ "core::alloc::Allocator", "allocate" },
	{ "core::alloc::Allocator", "allocate_zeroed" },
	{ "core::alloc::Allocator", "grow" },
	{ "core::alloc::Allocator", "grow_zeroed" },
};

/* Prefixes under which jemalloc exports its API (configure
 * --with-jemalloc-prefix, Rust's tikv-jemallocator). */
static const char *const prefixes[] = { "je_", "_rjem_", "_rjem_je_", "tc_" };

static int starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static int ends(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && memcmp(s + n - m, suf, m) == 0;
}

static int is_rust_alloc(const char *name)
{
	const char *shim = starts(name, "__rustc::") ? name + strlen("__rustc::") : name;
	for (size_t i = 0; i < sizeof rust_shims / sizeof rust_shims[0]; i++)
		if (strcmp(shim, rust_shims[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof rust_prefixes / sizeof rust_prefixes[0]; i++)
		if (starts(name, rust_prefixes[i]))
			return 1;
	for (size_t i = 0; i < sizeof rust_trait_methods / sizeof rust_trait_methods[0]; i++) {
		const char *trait = rust_trait_methods[i].trait;
		const char *method = rust_trait_methods[i].method;
		size_t tl = strlen(trait), ml = strlen(method), n = strlen(name);
		/* ">::method" ends the name, after "TRAIT" (a qualified path)
		 * or after an impl segment "<impl TRAIT for ...". */
		if (n < tl + ml + 4 || !ends(name, method) ||
		    memcmp(name + n - ml - 3, ">::", 3) != 0)
			continue;
		if (name[0] == '<' && memcmp(name + n - ml - 3 - tl, trait, tl) == 0)
			return 1;
		const char *impl = strstr(name, "<impl ");
		if (impl && starts(impl + 6, trait) && starts(impl + 6 + tl, " for "))
			return 1;
	}
	return 0;
}

static int is_entry(const char *name)
{
	for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
		if (strcmp(name, entry_points[i]) == 0)
			return 1;
	return 0;
}

int fk_alloc_is_frame(const char *module_base, const char *name,
		      const char *sysname)
{
	if (module_base && starts(module_base, "libjemalloc"))
		return 1;
	if (!name)
		return 0;
	/* C++: every overload of operator new and new[] (demangled), or
	 * their Itanium names _Znwm, _Znam, _ZnwmRKSt9nothrow_t, ... */
	if (starts(name, "operator new"))
		return 1;
	if (sysname && (starts(sysname, "_Znw") || starts(sysname, "_Zna")))
		return 1;
	if (is_entry(name) || is_rust_alloc(name))
		return 1;
	/* The sanitizers' interceptors replace the allocator (ASan's
	 * __interceptor_malloc, ___interceptor_malloc in newer runtimes). */
	const char *rest = name;
	while (*rest == '_')
		rest++;
	if (rest - name >= 2 && starts(rest, "interceptor_") &&
	    is_entry(rest + strlen("interceptor_")))
		return 1;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], n) != 0 || name[n] == '\0')
			continue;
		/* Everything a prefixed jemalloc exports is jemalloc's;
		 * tcmalloc's tc_ names are its entry points and tc_new*. */
		if (prefixes[i][0] != 't')
			return 1;
		return is_entry(name + n) || starts(name + n, "new");
	}
	return 0;
}

/* The regex builder: appends to a bounded buffer, remembering overflow. */
struct rx {
	char *buf;
	size_t size, len;
	int full;
};

static void rx_raw(struct rx *r, const char *s)
{
	size_t n = strlen(s);

	if (r->full || n >= r->size - r->len) {
		r->full = 1;
		return;
	}
	memcpy(r->buf + r->len, s, n + 1);
	r->len += n;
}

/* A literal, with RE2's special characters escaped. */
static void rx_lit(struct rx *r, const char *s)
{
	char c[3] = { '\\', 0, 0 };

	for (; *s; s++) {
		c[1] = *s;
		rx_raw(r, strchr(".^$*+?()[]{}|\\", *s) ? c : c + 1);
	}
}

/* "(a|b|c)" of the literals v[0..n). */
static void rx_alts(struct rx *r, const char *const *v, size_t n)
{
	rx_raw(r, "(");
	for (size_t i = 0; i < n; i++) {
		if (i)
			rx_raw(r, "|");
		rx_lit(r, v[i]);
	}
	rx_raw(r, ")");
}

#define N(a) (sizeof a / sizeof a[0])

int fk_alloc_regex(char *buf, size_t size)
{
	struct rx r = { buf, size, 0, size == 0 };

	if (size)
		buf[0] = '\0';
	/* The entry points, bare, under glibc's or a sanitizer's name. */
	rx_raw(&r, "(_+interceptor_)?");
	rx_alts(&r, entry_points, N(entry_points));
	/* Everything a prefixed jemalloc exports; tcmalloc's entry points. */
	rx_raw(&r, "|(je_|_rjem_|_rjem_je_).+|tc_(");
	rx_alts(&r, entry_points, N(entry_points));
	rx_raw(&r, "|new.*)");
	/* C++: every operator new and new[]. */
	rx_raw(&r, "|operator new.*");
	/* Rust: the shims, the allocation modules, the allocator traits. */
	rx_raw(&r, "|(__rustc::)?");
	rx_alts(&r, rust_shims, N(rust_shims));
	rx_raw(&r, "|");
	rx_alts(&r, rust_prefixes, N(rust_prefixes));
	rx_raw(&r, ".*");
	for (size_t i = 0; i < N(rust_trait_methods); i++) {
		rx_raw(&r, "|<.* as ");
		rx_lit(&r, rust_trait_methods[i].trait);
		rx_raw(&r, ">::");
		rx_lit(&r, rust_trait_methods[i].method);
		rx_raw(&r, "|.*<impl ");
		rx_lit(&r, rust_trait_methods[i].trait);
		rx_raw(&r, " for .*>::");
		rx_lit(&r, rust_trait_methods[i].method);
	}
	/* Frames of libjemalloc's own mapping, named module+offset. */
	rx_raw(&r, "|libjemalloc[^+]*\\+0x[0-9a-f]+");
	return r.full ? -1 : 0;
}
