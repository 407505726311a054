/* SPDX-License-Identifier: MIT */
/* What a worker process says to its listener (libflamekit-hook(3),
 * PROCESSES), read as untrusted bytes: its registration line and its
 * status line on the registry's connection, and the head of its HTTP
 * answer (RFC 9112: status line, header fields, blank line). Every reader
 * takes (ptr, len), never reads past it, and writes only NUL-terminated
 * text of a bounded size; the status line's writer is here too, so that
 * both ends of it are in one place. No I/O here. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hook_int.h"
#include "num.h"

/* ---- the registration line ---- */

static int name_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
}

/* A decimal number, or "-" for unknown (-1), of at most max. */
static int num_or_dash(const char *s, size_t n, uint64_t max, long long *out)
{
	uint64_t v;

	if (n == 1 && s[0] == '-') {
		*out = -1;
		return 0;
	}
	if (fk_parse_u64(s, n, &v) < 0 || v > max)
		return -1;
	*out = (long long)v;
	return 0;
}

int fk_answer_reg(const char *buf, size_t n, struct fk_answer_reg *r, size_t *used)
{
	const char *nl = memchr(buf, '\n', n < FK_ANSWER_MAX_REG ? n : FK_ANSWER_MAX_REG);
	const char *f[4], *end;
	size_t len[4], nf = 0;

	if (!nl)
		return n < FK_ANSWER_MAX_REG ? 0 : -1;
	*used = (size_t)(nl - buf) + 1;
	/* Fields split at single spaces: NAME, or NAME UID PID. */
	for (const char *p = buf; p <= nl; nf++) {
		if (nf == 4)
			return -1;
		end = p;
		while (end < nl && *end != ' ')
			end++;
		f[nf] = p;
		len[nf] = (size_t)(end - p);
		if (len[nf] == 0)
			return -1;
		p = end + 1;
	}
	if ((nf != 1 && nf != 3) || len[0] >= sizeof r->name)
		return -1;
	for (size_t i = 0; i < len[0]; i++)
		if (!name_char(f[0][i]))
			return -1;
	memcpy(r->name, f[0], len[0]);
	r->name[len[0]] = '\0';
	r->taken = nf == 3;
	r->uid = r->pid = -1;
	if (r->taken && (num_or_dash(f[1], len[1], UINT32_MAX - 1, &r->uid) < 0 ||
			 num_or_dash(f[2], len[2], FK_HOOK_PID_MAX, &r->pid) < 0))
		return -1;
	return 1;
}

/* ---- the head of an HTTP answer ---- */

/* The static string of a value the hook itself sends in field name, or
 * dflt: nothing a worker writes reaches the client but these. */
static const char *known(const char *const *vals, size_t nvals, const char *v, size_t n,
			 const char *dflt)
{
	for (size_t i = 0; i < nvals; i++)
		if (strlen(vals[i]) == n && strncasecmp(vals[i], v, n) == 0)
			return vals[i];
	return dflt;
}

static const char *const ctypes[] = {
	"application/octet-stream", "image/svg+xml", "application/json",
	"text/plain; charset=utf-8", "text/html; charset=utf-8",
};
static const char *const disps[] = {
	"attachment; filename=\"heap.pb.gz\"", "attachment; filename=\"lifetimes.pb.gz\"",
};

/* Whether line[0..n) is the field name (case-insensitive) with its colon;
 * *v and *vn get the value without the spaces around it. */
static int field(const char *line, size_t n, const char *name, const char **v, size_t *vn)
{
	size_t k = strlen(name);
	const char *p, *e = line + n;

	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return 0;
	for (p = line + k + 1; p < e && (*p == ' ' || *p == '\t'); p++)
		;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*v = p;
	*vn = (size_t)(e - p);
	return 1;
}

int fk_answer_head(const char *buf, size_t n, struct fk_answer_head *h, const char **why)
{
	size_t lim = n < FK_ANSWER_MAX_HEAD ? n : FK_ANSWER_MAX_HEAD;
	const char *end = memmem(buf, lim, "\r\n\r\n", 4), *line, *eol, *v;
	uint64_t status;
	size_t vn;

	*why = "the worker's answer is not HTTP";
	if (n >= 5 && memcmp(buf, "HTTP/", 5) != 0)
		return -1;
	if (!end && n < FK_ANSWER_MAX_HEAD)
		return 0;
	if (!end) {
		*why = "the head of the worker's answer is longer than "
		       FK_HOOK_STR(FK_ANSWER_MAX_HEAD) " bytes";
		return -1;
	}
	/* "HTTP/1.x SSS" then a space or the line's end. */
	if (end - buf < 12 || (memcmp(buf, "HTTP/1.0 ", 9) != 0 && memcmp(buf, "HTTP/1.1 ", 9) != 0) ||
	    fk_parse_u64(buf + 9, 3, &status) < 0 || status < 100 || status > 599 ||
	    (buf[12] != ' ' && buf[12] != '\r'))
		return -1;
	h->status = (unsigned)status;
	h->ctype = "text/plain; charset=utf-8";
	h->disposition = NULL;
	h->length = FK_ANSWER_NO_LENGTH;
	h->head_len = (size_t)(end - buf) + 4;
	for (line = memchr(buf, '\n', (size_t)(end - buf)); line && line < end + 2; line = eol + 1) {
		line++;
		eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
		if (!eol)
			break;
		if (memchr(line, '\0', (size_t)(eol - line))) {
			*why = "the head of the worker's answer holds a NUL byte";
			return -1;
		}
		if (field(line, (size_t)(eol - line), "Content-Type", &v, &vn)) {
			h->ctype = known(ctypes, sizeof ctypes / sizeof ctypes[0], v, vn,
					 "application/octet-stream");
		} else if (field(line, (size_t)(eol - line), "Content-Disposition", &v, &vn)) {
			h->disposition = known(disps, sizeof disps / sizeof disps[0], v, vn, NULL);
		} else if (field(line, (size_t)(eol - line), "Content-Length", &v, &vn)) {
			uint64_t len;

			if (fk_parse_u64(v, vn, &len) < 0 || len >= FK_ANSWER_NO_LENGTH ||
			    (h->length != FK_ANSWER_NO_LENGTH && h->length != len)) {
				*why = "the worker's answer has a bad Content-Length";
				return -1;
			}
			h->length = len;
		}
		if (eol == end)
			break;
	}
	return 1;
}

/* ---- the status line ---- */

/* The longest line the writer makes: its word, the flag, three fields at
 * their sizes' bounds, four tabs and the newline. */
_Static_assert(sizeof FK_ANSWER_STATUS - 1 + 2 + sizeof((struct fk_status *)0)->version +
	       sizeof((struct fk_status *)0)->symbol + sizeof((struct fk_status *)0)->module
	       <= FK_ANSWER_MAX_LINE, "FK_ANSWER_MAX_LINE holds a status line");

/* Copies s[0..n) into out (size bytes) with what the line cannot hold,
 * or the list need not show, as '?': control bytes, tabs, non-ASCII. */
static void clean(const char *s, size_t n, char *out, size_t size)
{
	size_t k = 0;

	for (; k < n && k + 1 < size; k++)
		out[k] = (unsigned char)s[k] < 0x20 || (unsigned char)s[k] >= 0x7f ? '?' : s[k];
	out[k] = '\0';
}

size_t fk_answer_status_line(const struct fk_status *st, char *buf, size_t size)
{
	char ver[sizeof st->version], sym[sizeof st->symbol], mod[sizeof st->module];
	int k;

	clean(st->version, strnlen(st->version, sizeof st->version), ver, sizeof ver);
	clean(st->symbol, strnlen(st->symbol, sizeof st->symbol), sym, sizeof sym);
	clean(st->module, strnlen(st->module, sizeof st->module), mod, sizeof mod);
	k = snprintf(buf, size, FK_ANSWER_STATUS "%d\t%s\t%s\t%s\n", st->enabled ? 1 : 0, ver,
		     sym, mod);
	return k > 0 && (size_t)k < size ? (size_t)k : 0;
}

/* The field f[0..n) into out (size bytes): -1 when it does not fit or
 * holds a control byte; a byte beyond ASCII becomes '?'. */
static int status_field(const char *f, size_t n, char *out, size_t size)
{
	if (n >= size)
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)f[i] < 0x20 || f[i] == 0x7f)
			return -1;
	clean(f, n, out, size);
	return 0;
}

int fk_answer_status(const char *buf, size_t n, struct fk_status *st, size_t *used)
{
	size_t lim = n < FK_ANSWER_MAX_LINE ? n : FK_ANSWER_MAX_LINE, w = sizeof FK_ANSWER_STATUS - 1;
	const char *nl = memchr(buf, '\n', lim), *f[4], *p, *end;
	size_t len[4], nf = 0;

	*used = 0;
	if (!nl)
		return n < FK_ANSWER_MAX_LINE ? 0 : -1;
	*used = (size_t)(nl - buf) + 1;
	if ((size_t)(nl - buf) < w || memcmp(buf, FK_ANSWER_STATUS, w) != 0)
		return -1;
	/* ENABLED, VERSION, SYMBOL, MODULE at tabs; only the flag is never
	 * empty. */
	for (p = buf + w; nf < 4; nf++) {
		end = memchr(p, '\t', (size_t)(nl - p));
		if (!end)
			end = nl;
		f[nf] = p;
		len[nf] = (size_t)(end - p);
		if (end == nl) {
			nf++;
			break;
		}
		p = end + 1;
	}
	if (nf != 4 || f[3] + len[3] != nl || len[0] != 1 || (f[0][0] != '0' && f[0][0] != '1'))
		return -1;
	memset(st, 0, sizeof *st);
	st->enabled = f[0][0] == '1';
	if (status_field(f[1], len[1], st->version, sizeof st->version) < 0 ||
	    status_field(f[2], len[2], st->symbol, sizeof st->symbol) < 0 ||
	    status_field(f[3], len[3], st->module, sizeof st->module) < 0)
		return -1;
	return 1;
}
