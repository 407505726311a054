/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what the listener reads from a worker (capture/
 * hook_answer.c): its registration lines, the head of its HTTP answer and
 * the members of its settings object, each on an exact-size copy of the
 * input, so that AddressSanitizer sees a read past the end. Whatever they
 * return must hold: a name of the allowed characters, a head no longer
 * than the input, a status in range, static header values, a member's
 * text NUL-terminated within its buffer, without control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reg(const char *b, size_t n)
{
	size_t off = 0, used = 0;
	struct fk_answer_reg r;
	int rc;

	/* Lines one after another, as the registry reads them. */
	while ((rc = fk_answer_reg(b + off, n - off, &r, &used)) > 0) {
		size_t len = strnlen(r.name, sizeof r.name);

		if (len == 0 || len == sizeof r.name || used == 0 || used > n - off)
			abort();
		for (size_t i = 0; i < len; i++)
			if (!strchr("0123456789abcdef-", r.name[i]))
				abort();
		if (!r.taken && (r.uid != -1 || r.pid != -1))
			abort();
		off += used;
	}
	if (rc == 0 && memchr(b + off, '\n', n - off < FK_ANSWER_MAX_REG ? n - off : FK_ANSWER_MAX_REG))
		abort();
}

static void check_head(const char *b, size_t n)
{
	struct fk_answer_head h;
	const char *why = NULL;
	int rc = fk_answer_head(b, n, &h, &why);

	if (rc < 0 && (!why || !*why))
		abort();
	if (rc == 0 && n >= FK_ANSWER_MAX_HEAD)
		abort();
	if (rc > 0) {
		if (h.head_len > n || h.head_len > FK_ANSWER_MAX_HEAD || h.head_len < 16 ||
		    memcmp(b + h.head_len - 4, "\r\n\r\n", 4) != 0)
			abort();
		if (h.status < 100 || h.status > 599 || !h.ctype || strlen(h.ctype) > 40)
			abort();
		if (h.disposition && strncmp(h.disposition, "attachment; ", 12) != 0)
			abort();
	}
}

static void check_field(const char *b, size_t n)
{
	static const char *const keys[] = { "enabled", "mallctl", "mallctl_module", "x", "" };

	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		char out[9];
		int rc;

		memset(out, 'Q', sizeof out);
		rc = fk_answer_field(b, n, keys[k], out, sizeof out - 1);
		/* The last byte is never written: the text ends before it. */
		if (out[sizeof out - 1] != 'Q' || strnlen(out, sizeof out - 1) == sizeof out - 1)
			abort();
		if (rc < 0 && out[0])
			abort();
		for (size_t i = 0; out[i]; i++)
			if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = malloc(size ? size : 1);

	if (!b)
		abort();
	memcpy(b, data, size);
	check_reg(b, size);
	check_head(b, size);
	/* The settings are read from the body after a head. */
	check_field(b, size);
	for (size_t i = 0; i + 3 < size; i++) {
		if (memcmp(b + i, "\r\n\r\n", 4) == 0) {
			check_field(b + i + 4, size - i - 4);
			break;
		}
	}
	free(b);
	return 0;
}
