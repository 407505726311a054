/* libFuzzer target: the Rust demangler (fk_symname_rust) on the whole input
 * and on each of its lines, from an exact-size heap copy so that a read past
 * the end shows. Whatever it returns must be a string of at most
 * FK_MAX_NAME bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "symbolize_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *s, size_t len)
{
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, s, len);
	char *d = fk_symname_rust(copy, len);
	free(copy);
	if (d && strlen(d) > FK_MAX_NAME)
		abort();
	free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	/* Seeds hold one name a line; mutations then work on real names. */
	const uint8_t *p = data, *end = data + size;
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (p != data || nl)
			one(p, n);
		p += n + 1;
	}
	return 0;
}
