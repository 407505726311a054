/* SPDX-License-Identifier: MIT */
/* Symbol names as ELF symbol tables hold them, turned into the names people
 * compare and merge: version suffixes (GNU symbol versioning) and compiler
 * clone suffixes removed, Rust (v0 and legacy) and Itanium C++ ABI names
 * demangled by libiberty, the demangler of binutils and gdb: its callback
 * forms neither allocate nor exit, and need no libstdc++ in the processes
 * the hook is preloaded into. A name whose output would pass FK_MAX_NAME
 * bytes is abandoned there: back-references let a short mangled name stand
 * for an output exponential in its length, and libiberty would go on
 * walking it (a 200-byte Rust name took minutes), so the callback jumps
 * out of the demangler. That is safe because both demanglers keep their
 * state on the stack and allocate nothing. Where the Rust demangler prints
 * nothing it can still loop without end: rustv0.c checks a v0 name first. */
#include <ctype.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "grow.h"
#include "limits.h"
#include "symbolize_int.h"

size_t fk_symname_syslen(const char *raw, size_t len)
{
	const char *at = memchr(raw, '@', len);

	/* A leading '@' is no version suffix. */
	return at && at > raw ? (size_t)(at - raw) : len;
}

/* Clone suffixes GCC and LLVM append to a function's name; each starts a
 * ".word" component, possibly followed by ".N" parts and further clones. */
static const char *const clone_words[] = {
	"part", "isra", "constprop", "cold", "localalias", "lto_priv",
	"clone", "llvm", "specialized",
};

static int is_clone_word(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof clone_words / sizeof clone_words[0]; i++) {
		size_t wl = strlen(clone_words[i]);
		if (wl == n && memcmp(s, clone_words[i], n) == 0)
			return 1;
	}
	return 0;
}

size_t fk_symname_baselen(const char *raw, size_t len)
{
	len = fk_symname_syslen(raw, len);
	/* A legacy Rust name's elements hold dots ("core..clone..Clone"):
	 * clone suffixes can only follow its closing "E". */
	size_t from = fk_symname_rust_legacylen(raw, len);
	/* Find the first ".word" with a known clone word after position 0;
	 * everything from there is clone decoration. */
	for (size_t i = from ? from : 1; i < len; i++) {
		if (raw[i] != '.')
			continue;
		size_t j = i + 1;
		while (j < len && raw[j] != '.')
			j++;
		if (is_clone_word(raw + i + 1, j - i - 1))
			return i;
	}
	return len;
}

/* Whether s[0..n) is "h" and 16 hex digits: the hash element that ends a
 * legacy Rust name. */
static int is_rust_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

size_t fk_symname_rust_legacylen(const char *raw, size_t len)
{
	/* _ZN, then <decimal length><bytes> elements, then E. */
	size_t i = 3, last = 0, lastlen = 0;

	if (len < 4 || memcmp(raw, "_ZN", 3) != 0)
		return 0;
	while (i < len && raw[i] != 'E') {
		size_t n = 0;

		if (!isdigit((unsigned char)raw[i]) || raw[i] == '0')
			return 0;
		while (i < len && isdigit((unsigned char)raw[i])) {
			n = n * 10 + (size_t)(raw[i] - '0');
			if (n > len)
				return 0;
			i++;
		}
		if (n > len - i)
			return 0;
		last = i;
		lastlen = n;
		i += n;
	}
	if (i >= len || !is_rust_hash(raw + last, lastlen))
		return 0;
	return i + 1;
}

/* The demangler's output, gathered up to FK_MAX_NAME bytes; past them, or
 * out of memory, gather leaves the demangler through stop. */
struct dem {
	char *buf;
	size_t len, cap;
	jmp_buf stop;
};

static void gather(const char *s, size_t n, void *opaque)
{
	struct dem *d = opaque;

	if (n > FK_MAX_NAME - d->len ||
	    fk_append(&d->buf, &d->len, &d->cap, s, n) < 0)
		longjmp(d->stop, 1);
}

/* Runs one demangler on m into d; 0 when it fails or is stopped. */
static int run(int rust, const char *m, struct dem *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->cap = 0;
	if (setjmp(d->stop))
		return 0;
	return rust ? rust_demangle_callback(m, DMGL_PARAMS | DMGL_ANSI, gather, d)
		    : cplus_demangle_v3_callback(m, DMGL_PARAMS | DMGL_ANSI, gather, d);
}

char *fk_symname_demangle(const char *raw, size_t len)
{
	struct dem d = { 0 };
	char *tmp;
	int ok;

	/* Rust names start with _R (v0) or _ZN (legacy, which are also valid
	 * Itanium names: Rust first, so the hash is dropped); C++ with _Z,
	 * which some toolchains prefix with an underscore. */
	if (len < 3 || !(memcmp(raw, "_R", 2) == 0 || memcmp(raw, "_Z", 2) == 0 ||
			 memcmp(raw, "__Z", 3) == 0 || memcmp(raw, "__R", 3) == 0))
		return NULL;
	tmp = malloc(len + 1);
	if (!tmp)
		return NULL;
	memcpy(tmp, raw, len);
	tmp[len] = '\0';
	const char *m = tmp[1] == '_' ? tmp + 1 : tmp;
	ok = (fk_symname_v0_bounded(m) && run(1, m, &d)) || (m[1] == 'Z' && run(0, m, &d));
	free(tmp);
	if (!ok || !d.buf || d.len == 0) {
		free(d.buf);
		return NULL;
	}
	return d.buf;
}
