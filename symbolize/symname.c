/* Symbol names as ELF symbol tables hold them, turned into the names people
 * compare and merge: version suffixes (GNU symbol versioning) and compiler
 * clone suffixes removed, Rust (rustsym.c) and Itanium C++ ABI names
 * demangled. */
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/* libstdc++'s demangler (the Itanium C++ ABI's __cxa_demangle); declared
 * here because its header is C++ only. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

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

char *fk_symname_demangle(const char *raw, size_t len)
{
	/* Rust first: its legacy names are valid Itanium names too, which
	 * __cxa_demangle shows with their hash and "$LT$"-style escapes. */
	char *rust = fk_symname_rust(raw, len);
	if (rust)
		return rust;
	/* Itanium names start with _Z; some toolchains add an underscore. */
	if (len < 3 || !(memcmp(raw, "_Z", 2) == 0 || memcmp(raw, "__Z", 3) == 0))
		return NULL;
	char *tmp = malloc(len + 1);
	if (!tmp)
		return NULL;
	memcpy(tmp, raw, len);
	tmp[len] = '\0';
	int status = -1;
	char *out = __cxa_demangle(tmp[1] == '_' ? tmp + 1 : tmp, NULL, NULL, &status);
	free(tmp);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
