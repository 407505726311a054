/* Which frames belong to the allocator rather than to the program: every
 * frame of a libjemalloc mapping (Debian's is stripped, so its frames have
 * no trustworthy names), the allocation entry points of C, C++ and
 * jemalloc's own API, and jemalloc's internals for a statically linked
 * jemalloc (jeprof 5.3.1's list, src/jeprof.in, extended). */
#include <string.h>

#include "symbolize_int.h"

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

/* Prefixes under which jemalloc exports its API (configure
 * --with-jemalloc-prefix, Rust's tikv-jemallocator). */
static const char *const prefixes[] = { "je_", "_rjem_", "_rjem_je_", "tc_" };

static int starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
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
	if (is_entry(name))
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
