/* SPDX-License-Identifier: MIT */
/* A check of a Rust v0 mangled name before libiberty demangles it (RFC
 * 2603's grammar, as libiberty's rust-demangle.c reads it). libiberty loops
 * once per lifetime a binder ("G" and a base-62 count) declares, also where
 * it prints nothing (the path of an impl, the instantiating crate), so a
 * 77-byte name declaring 3.5e12 lifetimes kept it busy for hours. Here the
 * grammar is walked once, left to right, back-references not followed (so
 * the walk is linear in the name), adding up the binders' counts. A name
 * is passed on only when it parses and they stay within FK_V0_LIFETIMES;
 * where it prints, libiberty's work is bounded by its output, which
 * symname.c caps. */
#include <stddef.h>
#include <stdint.h>

#include "symbolize_int.h"

/* Lifetimes a name may declare in all its binders; real ones declare a
 * handful ("for<'a, 'b>"). */
#define FK_V0_LIFETIMES 1024
/* Nesting of paths, types and constants; libiberty stops at 1024. */
#define FK_V0_DEPTH 1024

struct walk {
	const char *s;
	size_t n, at;
	unsigned depth;
	uint64_t lifetimes;
	int bad;
};

static char peek(const struct walk *w)
{
	return w->at < w->n ? w->s[w->at] : 0;
}

static int eat(struct walk *w, char c)
{
	if (peek(w) != c || c == 0)
		return 0;
	w->at++;
	return 1;
}

static char next(struct walk *w)
{
	char c = peek(w);

	if (!c)
		w->bad = 1;
	else
		w->at++;
	return c;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static int is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* "_" is 0, else base-62 digits and "_" are the number + 1, saturated at
 * UINT64_MAX (libiberty wraps; only a binder's count matters here). */
static uint64_t num62(struct walk *w)
{
	uint64_t x = 0;
	char c;

	if (eat(w, '_'))
		return 0;
	while (!w->bad && (c = next(w)) != '_') {
		int d = is_digit(c) ? c - '0' : is_lower(c) ? c - 'a' + 10 :
			is_upper(c) ? c - 'A' + 36 : -1;
		if (d < 0)
			w->bad = 1;
		else if (x > (UINT64_MAX - 62) / 62)
			x = UINT64_MAX - 1;
		else
			x = x * 62 + (uint64_t)d;
	}
	return x + 1;
}

/* tag and a number, or nothing: the number + 1 (saturated), or 0. */
static uint64_t opt_num62(struct walk *w, char tag)
{
	if (!eat(w, tag))
		return 0;
	uint64_t x = num62(w);
	return x < UINT64_MAX ? x + 1 : x;
}

/* ["u"] decimal length ["_"] bytes. */
static void ident(struct walk *w)
{
	size_t len;
	char c;

	eat(w, 'u');
	c = next(w);
	if (!is_digit(c)) {
		w->bad = 1;
		return;
	}
	len = (size_t)(c - '0');
	if (c != '0')
		while (is_digit(peek(w))) {
			if (len > (SIZE_MAX - 9) / 10) {
				w->bad = 1;
				return;
			}
			len = len * 10 + (size_t)(next(w) - '0');
		}
	eat(w, '_');
	if (len > w->n - w->at)
		w->bad = 1;
	else
		w->at += len;
}

static void binder(struct walk *w)
{
	uint64_t k = opt_num62(w, 'G');

	if (k > FK_V0_LIFETIMES - w->lifetimes)
		w->bad = 1;
	else
		w->lifetimes += k;
}

static void path(struct walk *w);
static void type(struct walk *w);

/* Enters one level of nesting; 0 when that passes FK_V0_DEPTH. */
static int enter(struct walk *w)
{
	if (w->bad || ++w->depth > FK_V0_DEPTH) {
		w->bad = 1;
		return 0;
	}
	return 1;
}

static void hex_digits(struct walk *w)
{
	char c;

	while (!w->bad && !eat(w, '_')) {
		c = next(w);
		if (!is_digit(c) && !(c >= 'a' && c <= 'f'))
			w->bad = 1;
	}
}

static void cnst(struct walk *w)
{
	if (!enter(w))
		return;
	if (eat(w, 'B')) {
		num62(w);
	} else {
		char t = next(w);
		switch (t) {
		case 'p':
			break;
		case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
			eat(w, 'n');    /* a sign */
			hex_digits(w);
			break;
		case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		case 'b': case 'c':
			hex_digits(w);
			break;
		default:
			w->bad = 1;
		}
	}
	w->depth--;
}

static void generic_arg(struct walk *w)
{
	if (eat(w, 'L'))
		num62(w);
	else if (eat(w, 'K'))
		cnst(w);
	else
		type(w);
}

static void generic_args(struct walk *w)
{
	while (!w->bad && !eat(w, 'E'))
		generic_arg(w);
}

static void path(struct walk *w)
{
	if (!enter(w))
		return;
	switch (next(w)) {
	case 'C':
		opt_num62(w, 's');
		ident(w);
		break;
	case 'N':
		if (!is_lower(peek(w)) && !is_upper(peek(w))) {
			w->bad = 1;
			break;
		}
		w->at++;
		path(w);
		opt_num62(w, 's');
		ident(w);
		break;
	case 'M':
		opt_num62(w, 's');
		path(w);
		type(w);
		break;
	case 'X':
		opt_num62(w, 's');
		path(w);
		type(w);
		path(w);
		break;
	case 'Y':
		type(w);
		path(w);
		break;
	case 'I':
		path(w);
		generic_args(w);
		break;
	case 'B':
		num62(w);
		break;
	default:
		w->bad = 1;
	}
	w->depth--;
}

static int basic(char c)
{
	return c && (c == 'b' || c == 'c' || c == 'e' || c == 'u' || c == 'a' || c == 's' ||
		     c == 'l' || c == 'x' || c == 'n' || c == 'i' || c == 'h' || c == 't' ||
		     c == 'm' || c == 'y' || c == 'o' || c == 'j' || c == 'f' || c == 'd' ||
		     c == 'z' || c == 'p' || c == 'v');
}

static void type(struct walk *w)
{
	char t;

	if (w->bad)
		return;
	if (basic(peek(w))) {
		w->at++;
		return;
	}
	if (!enter(w))
		return;
	switch (t = next(w)) {
	case 'R':
	case 'Q':
		if (eat(w, 'L'))
			num62(w);
		type(w);
		break;
	case 'P':
	case 'O':
	case 'S':
		type(w);
		break;
	case 'A':
		type(w);
		cnst(w);
		break;
	case 'T':
		while (!w->bad && !eat(w, 'E'))
			type(w);
		break;
	case 'F':
		binder(w);
		eat(w, 'U');
		if (eat(w, 'K') && !eat(w, 'C'))
			ident(w);
		while (!w->bad && !eat(w, 'E'))
			type(w);
		if (!eat(w, 'u'))
			type(w);
		break;
	case 'D':
		binder(w);
		while (!w->bad && !eat(w, 'E')) {
			/* A trait: a path, its generic arguments left open for
			 * the associated types that follow. */
			if (eat(w, 'B'))
				num62(w);
			else if (eat(w, 'I')) {
				path(w);
				generic_args(w);
			} else {
				path(w);
			}
			while (!w->bad && eat(w, 'p')) {
				ident(w);
				type(w);
			}
		}
		if (!eat(w, 'L'))
			w->bad = 1;
		else
			num62(w);
		break;
	case 'B':
		num62(w);
		break;
	default:
		/* A path: back to its tag. */
		if (t)
			w->at--;
		path(w);
	}
	w->depth--;
}

int fk_symname_v0_bounded(const char *m)
{
	struct walk w = { 0 };

	if (m[0] != '_' || m[1] != 'R')
		return 1;
	w.s = m + 2;
	/* What libiberty reads: up to a "." suffix or the end. */
	while (w.s[w.n] && w.s[w.n] != '.')
		w.n++;
	if (!is_upper(peek(&w)))
		return 1;       /* libiberty refuses it at once */
	path(&w);
	if (!w.bad && w.at < w.n)
		path(&w);       /* the instantiating crate */
	return !w.bad && w.at == w.n;
}
