/* SPDX-License-Identifier: MIT */
/* libFuzzer target: symbol names as symbolize turns them into display
 * names (fk_symname_baselen, fk_symname_rust_legacylen, then libiberty's
 * demanglers through fk_symname_demangle) on the whole input. Nothing may
 * read past the name, and a demangled name is never empty or over
 * FK_MAX_NAME bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "symbolize_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the name. */
	char *raw = malloc(size ? size : 1);

	if (!raw)
		return 0;
	memcpy(raw, data, size);
	size_t base = fk_symname_baselen(raw, size);
	if (base > size)
		abort();
	size_t leg = fk_symname_rust_legacylen(raw, size);
	if (leg > size)
		abort();
	char *d = fk_symname_demangle(raw, base);
	if (d && (d[0] == '\0' || strlen(d) > FK_MAX_NAME))
		abort();
	free(d);
	free(raw);
	return 0;
}
