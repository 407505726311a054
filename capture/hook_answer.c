/* SPDX-License-Identifier: MIT */
/* What a worker process says to its listener (libflamekit-hook(3),
 * PROCESSES), read as untrusted bytes: its registration line, the head
 * of its HTTP answer (RFC 9112: status line, header fields, blank line)
 * and the scalar members of its settings' JSON object (RFC 8259). Every
 * reader takes (ptr, len), never reads past it, and writes only
 * NUL-terminated text of a bounded size; no I/O here. */
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

/* ---- members of the settings' object ---- */

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/* The end of the string whose opening quote is s[i] (one past its closing
 * quote), or 0 when it does not end before n. */
static size_t string_end(const char *s, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		if (s[i] == '"')
			return i + 1;
		if (s[i] == '\\')
			i++;
		else if ((unsigned char)s[i] < 0x20)
			return 0;
	}
	return 0;
}

static int literal_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' ||
	       c == '.' || c == 'E';
}

/* The end of the value that starts at s[i], or 0 when it is malformed or
 * does not end before n. Nested objects and arrays are skipped by
 * counting brackets (their strings by string_end), without recursion. */
static size_t value_end(const char *s, size_t i, size_t n)
{
	size_t depth = 0;

	if (i >= n)
		return 0;
	if (s[i] == '"')
		return string_end(s, i, n);
	if (s[i] != '{' && s[i] != '[') {
		size_t b = i;

		while (i < n && literal_char(s[i]))
			i++;
		return i > b ? i : 0;
	}
	for (; i < n; i++) {
		if (s[i] == '"') {
			size_t e = string_end(s, i, n);

			if (!e)
				return 0;
			i = e - 1;
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The text of the string s[b..e) (quotes included) into out: escapes
 * undone, a control character or an escape beyond ASCII as '?' (the list
 * shows a worker's words; none of ours needs more), cut at size - 1. */
static void unquote(const char *s, size_t b, size_t e, char *out, size_t size)
{
	size_t k = 0;

	for (size_t i = b + 1; i + 1 < e && k + 1 < size; i++) {
		char c = s[i];

		if (c == '\\' && i + 2 < e) {
			c = s[++i];
			if (c == 'u') {
				int v = 0;

				for (int d = 0; d < 4; d++) {
					int x = i + 1 < e - 1 ? hexval(s[i + 1]) : -1;

					if (x < 0) {
						v = -1;
						break;
					}
					v = v * 16 + x;
					i++;
				}
				c = v >= 0x20 && v < 0x7f ? (char)v : '?';
			} else if (c != '"' && c != '\\' && c != '/') {
				c = '?';
			}
		}
		out[k++] = (unsigned char)c < 0x20 || c == 0x7f ? '?' : c;
	}
	out[k] = '\0';
}

int fk_answer_field(const char *json, size_t n, const char *key, char *out, size_t size)
{
	size_t i = skip_ws(json, 0, n), klen = strlen(key);

	if (size == 0)
		return -1;
	out[0] = '\0';
	if (i >= n || json[i] != '{')
		return -1;
	i = skip_ws(json, i + 1, n);
	if (i < n && json[i] == '}')
		return -1;
	while (i < n) {
		size_t ke, ve, vb;
		int match;

		if (json[i] != '"' || !(ke = string_end(json, i, n)))
			return -1;
		match = ke - i - 2 == klen && memcmp(json + i + 1, key, klen) == 0;
		i = skip_ws(json, ke, n);
		if (i >= n || json[i] != ':')
			return -1;
		vb = skip_ws(json, i + 1, n);
		if (!(ve = value_end(json, vb, n)))
			return -1;
		if (match) {
			if (json[vb] == '{' || json[vb] == '[')
				return -1;
			if (json[vb] == '"') {
				unquote(json, vb, ve, out, size);
			} else {
				size_t len = ve - vb < size - 1 ? ve - vb : size - 1;

				memcpy(out, json + vb, len);
				out[len] = '\0';
			}
			return 0;
		}
		i = skip_ws(json, ve, n);
		if (i >= n || json[i] == '}')
			return -1;
		if (json[i] != ',')
			return -1;
		i = skip_ws(json, i + 1, n);
	}
	return -1;
}
