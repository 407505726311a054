/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what the listener reads from a worker (capture/
 * hook_answer.c): its registration lines, its status lines and the head
 * of its HTTP answer, each on an exact-size copy of the input, so that
 * AddressSanitizer sees a read past the end. Whatever they return must
 * hold: a name of the allowed characters, a status's text NUL-terminated
 * within its fields, printable ASCII, and written back by the worker's
 * writer as the same line; a head no longer than the input, a status in
 * range, static header values. */
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

/* Text of a status field: ends within it, printable ASCII. */
static void check_text(const char *t, size_t size)
{
	size_t len = strnlen(t, size);

	if (len == size)
		abort();
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] >= 0x7f)
			abort();
}

static void check_status(const char *b, size_t n)
{
	size_t off = 0, used = 0;
	struct fk_status st, again;
	int rc;

	/* Lines one after another, as the registry reads them. */
	while ((rc = fk_answer_status(b + off, n - off, &st, &used)) != 0) {
		char line[FK_ANSWER_MAX_LINE];
		size_t k, used2 = 0;

		if (rc < 0 && used == 0)
			break;         /* no line's end within FK_ANSWER_MAX_LINE */
		if (used == 0 || used > n - off || used > FK_ANSWER_MAX_LINE)
			abort();
		off += used;
		if (rc < 0)
			continue;
		if (st.enabled != 0 && st.enabled != 1)
			abort();
		check_text(st.version, sizeof st.version);
		check_text(st.symbol, sizeof st.symbol);
		check_text(st.module, sizeof st.module);
		/* What the worker's writer makes of it reads back the same. */
		k = fk_answer_status_line(&st, line, sizeof line);
		if (k == 0 || fk_answer_status(line, k, &again, &used2) != 1 || used2 != k ||
		    memcmp(&st, &again, sizeof st) != 0)
			abort();
	}
	if (rc == 0 && memchr(b + off, '\n', n - off))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = malloc(size ? size : 1);

	if (!b)
		abort();
	memcpy(b, data, size);
	check_reg(b, size);
	check_status(b, size);
	check_head(b, size);
	free(b);
	return 0;
}
