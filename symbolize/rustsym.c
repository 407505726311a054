/* Rust symbol names, demangled into the form rustc-demangle prints in its
 * alternate mode ({:#}): the path without crate disambiguators, legacy
 * hashes or instantiating crate. Written from the v0 grammar (RFC 2603, the
 * rustc book's "v0 Symbol Format") with Punycode identifiers (RFC 3492), and
 * from the legacy scheme (_ZN <len><element>... E, "$LT$"-style escapes, a
 * last element "h" + 16 hex digits). Names come from files we do not trust:
 * every read is checked against len, and recursion, work and output are
 * bounded (core/limits.h: FK_MAX_RUST_*, FK_MAX_NAME). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "symbolize_int.h"

/* ---- output: a growing string, at most FK_MAX_NAME bytes ---- */

struct out {
	char *buf;
	size_t len, cap;
};

static int put(struct out *o, const char *s, size_t n)
{
	if (n > FK_MAX_NAME - o->len)
		return -1;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 64;
		while (cap < o->len + n + 1)
			cap *= 2;
		if (cap > FK_MAX_NAME + 1)
			cap = FK_MAX_NAME + 1;
		char *b = realloc(o->buf, cap);
		if (!b)
			return -1;
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return 0;
}

static int puts_(struct out *o, const char *s)
{
	return put(o, s, strlen(s));
}

static int put_u64(struct out *o, uint64_t v)
{
	char d[20];
	size_t i = sizeof d;
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return put(o, d + i, sizeof d - i);
}

static int put_utf8(struct out *o, uint32_t c)
{
	char b[4];
	size_t n;
	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	return put(o, b, n);
}

static int is_scalar(uint64_t c)
{
	return c <= 0x10ffff && (c < 0xd800 || c > 0xdfff);
}

/* Unicode's Cc (control) category: what Rust escapes in every context. */
static int is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

/* What Rust's Debug escapes as \u{...} in char and str literals, roughly:
 * controls, the common format characters, private use, and the planes
 * past 3, where nothing is printable. (Rust also escapes unassigned code
 * points and leading combining marks, from tables we do not carry.) */
static int needs_escape(uint32_t c)
{
	return is_control(c) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
	       c == 0xfeff || (c >= 0xfff0 && c <= 0xfffb) || c == 0xfffe || c == 0xffff ||
	       (c >= 0xe000 && c <= 0xf8ff) || c >= 0x40000;
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

static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A char or string character the way Rust's Debug escapes it, inside
 * quotes q; other characters are written as UTF-8. */
static int put_escaped(struct out *o, uint32_t c, char q)
{
	char b[16];
	switch (c) {
	case '\t': return puts_(o, "\\t");
	case '\r': return puts_(o, "\\r");
	case '\n': return puts_(o, "\\n");
	case '\\': return puts_(o, "\\\\");
	case '\0': return puts_(o, "\\0");
	default: break;
	}
	if (c == (uint32_t)q) {
		b[0] = '\\';
		b[1] = q;
		return put(o, b, 2);
	}
	if (needs_escape(c)) {
		static const char hex[] = "0123456789abcdef";
		size_t n = 0;
		b[n++] = '\\';
		b[n++] = 'u';
		b[n++] = '{';
		int shift = 28;
		while (shift > 0 && (c >> shift & 0xf) == 0)
			shift -= 4;
		for (; shift >= 0; shift -= 4)
			b[n++] = hex[c >> shift & 0xf];
		b[n++] = '}';
		return put(o, b, n);
	}
	return put_utf8(o, c);
}

/* ---- v0 ---- */

struct v0 {
	const char *s;                 /* the name after "_R", ASCII */
	size_t n, pos;                 /* its length (without a suffix), cursor */
	struct out *o;
	unsigned skip;                 /* > 0: parse without printing */
	unsigned depth;
	unsigned long steps;
	uint64_t bound;                /* lifetimes bound by enclosing binders */
};

struct ident {
	const char *ascii;             /* plain part (Punycode: the basic code points) */
	size_t alen;
	const char *puny;              /* Punycode deltas, or NULL */
	size_t plen;
};

static char peek(const struct v0 *p)
{
	return p->pos < p->n ? p->s[p->pos] : '\0';
}

static int eat(struct v0 *p, char c)
{
	if (p->pos < p->n && p->s[p->pos] == c) {
		p->pos++;
		return 1;
	}
	return 0;
}

static char next(struct v0 *p)
{
	return p->pos < p->n ? p->s[p->pos++] : '\0';
}

static int emit(struct v0 *p, const char *s)
{
	return p->skip ? 0 : puts_(p->o, s);
}

static int emit_n(struct v0 *p, const char *s, size_t n)
{
	return p->skip ? 0 : put(p->o, s, n);
}

static int emit_u64(struct v0 *p, uint64_t v)
{
	return p->skip ? 0 : put_u64(p->o, v);
}

static int enter(struct v0 *p)
{
	if (p->depth >= FK_MAX_RUST_DEPTH || p->steps >= FK_MAX_RUST_STEPS)
		return -1;
	p->depth++;
	p->steps++;
	return 0;
}

static int leave(struct v0 *p, int rc)
{
	p->depth--;
	return rc;
}

/* base-62-number: "_" is 0, else digits 0-9a-zA-Z then "_" are value - 1. */
static int b62(struct v0 *p, uint64_t *v)
{
	if (eat(p, '_')) {
		*v = 0;
		return 0;
	}
	uint64_t x = 0;
	for (;;) {
		char c = next(p);
		unsigned d;
		if (c == '_')
			break;
		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if (is_lower(c))
			d = 10 + (unsigned)(c - 'a');
		else if (is_upper(c))
			d = 36 + (unsigned)(c - 'A');
		else
			return -1;
		if (x > (UINT64_MAX - d) / 62)
			return -1;
		x = x * 62 + d;
	}
	if (x == UINT64_MAX)
		return -1;
	*v = x + 1;
	return 0;
}

/* An optional tag + base-62-number, stored plus one (absent is 0): the
 * disambiguator "s" and the binder "G" count that way. */
static int opt_b62(struct v0 *p, char tag, uint64_t *v)
{
	*v = 0;
	if (!eat(p, tag))
		return 0;
	uint64_t x;
	if (b62(p, &x) != 0 || x == UINT64_MAX)
		return -1;
	*v = x + 1;
	return 0;
}

/* decimal-number: "0", or a non-zero digit and more digits. */
static int decimal(struct v0 *p, size_t *v)
{
	char c = peek(p);
	if (!is_digit(c))
		return -1;
	p->pos++;
	size_t x = (size_t)(c - '0');
	if (x == 0) {
		*v = 0;
		return 0;
	}
	while (is_digit(c = peek(p))) {
		if (x > p->n / 10)
			return -1;          /* longer than the name itself */
		x = x * 10 + (size_t)(c - '0');
		p->pos++;
	}
	*v = x;
	return 0;
}

/* undisambiguated-identifier: "u"? decimal "_"? bytes. A Punycode one is
 * split at its last "_" (the "-" of standard Punycode). */
static int ident(struct v0 *p, struct ident *id)
{
	int puny = eat(p, 'u');
	size_t len;
	if (decimal(p, &len) != 0)
		return -1;
	eat(p, '_');
	if (len > p->n - p->pos)
		return -1;
	const char *b = p->s + p->pos;
	p->pos += len;
	id->ascii = b;
	id->alen = len;
	id->puny = NULL;
	id->plen = 0;
	if (puny) {
		size_t k = len;
		while (k > 0 && b[k - 1] != '_')
			k--;
		id->alen = k ? k - 1 : 0;
		id->puny = b + k;
		id->plen = len - k;
		if (id->plen == 0)
			return -1;
	}
	return 0;
}

static int ident_empty(const struct ident *id)
{
	return id->alen == 0 && id->plen == 0;
}

/* RFC 3492 section 6.1. */
static uint64_t puny_adapt(uint64_t delta, uint64_t npoints, int first)
{
	uint64_t k = 0;
	delta = first ? delta / 700 : delta / 2;
	delta += delta / npoints;
	while (delta > ((36 - 1) * 26) / 2) {
		delta /= 36 - 1;
		k += 36;
	}
	return k + (36 * delta) / (delta + 38);
}

/* Decodes a Punycode identifier (RFC 3492 with "_" for "-") into o. */
static int put_punycode(struct out *o, const struct ident *id)
{
	if (id->alen + id->plen > FK_MAX_RUST_PUNYCODE)
		return -1;
	uint32_t cp[FK_MAX_RUST_PUNYCODE];
	size_t ncp = 0;
	for (size_t k = 0; k < id->alen; k++)
		cp[ncp++] = (unsigned char)id->ascii[k];
	uint64_t n = 128, i = 0, bias = 72;
	size_t pos = 0;
	while (pos < id->plen) {
		uint64_t oldi = i, w = 1;
		for (uint64_t k = 36;; k += 36) {
			if (pos == id->plen)
				return -1;
			char c = id->puny[pos++];
			uint64_t d;
			if (is_lower(c))
				d = (uint64_t)(c - 'a');
			else if (is_digit(c))
				d = 26 + (uint64_t)(c - '0');
			else
				return -1;
			/* Values past the last code point can only be wrong. */
			if (d * w > (uint64_t)0x10ffff * (FK_MAX_RUST_PUNYCODE + 1) - i)
				return -1;
			i += d * w;
			uint64_t t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
			if (d < t)
				break;
			w *= 36 - t;
			if (w > (uint64_t)0x10ffff * (FK_MAX_RUST_PUNYCODE + 1))
				return -1;
		}
		/* Every delta consumed at least one byte: ncp stays below
		 * alen + plen, hence below FK_MAX_RUST_PUNYCODE. */
		uint64_t count = ncp + 1;
		bias = puny_adapt(i - oldi, count, oldi == 0);
		n += i / count;
		i %= count;
		if (!is_scalar(n))
			return -1;
		memmove(cp + i + 1, cp + i, (ncp - (size_t)i) * sizeof cp[0]);
		cp[i] = (uint32_t)n;
		ncp++;
		i++;
	}
	for (size_t k = 0; k < ncp; k++)
		if (put_utf8(o, cp[k]) != 0)
			return -1;
	return 0;
}

static int print_ident(struct v0 *p, const struct ident *id)
{
	if (p->skip)
		return 0;
	if (!id->puny)
		return put(p->o, id->ascii, id->alen);
	return put_punycode(p->o, id);
}

static int path(struct v0 *p, int in_value);
static int type(struct v0 *p, int unused);
static int konst(struct v0 *p, int in_value);

/* After "B" at position at: jumps to the target (which lies before at)
 * and runs fn there. Parts parsed without printing need not be followed. */
static int backref(struct v0 *p, size_t at, int (*fn)(struct v0 *, int), int arg)
{
	uint64_t t;
	if (b62(p, &t) != 0 || t >= at)
		return -1;
	if (p->skip)
		return 0;
	size_t save = p->pos;
	p->pos = (size_t)t;
	int rc = fn(p, arg);
	p->pos = save;
	return rc;
}

/* A lifetime by its de Bruijn index: 'a for the outermost bound one. */
static int print_lifetime(struct v0 *p, uint64_t idx)
{
	if (idx == 0)
		return emit(p, "'_");
	if (idx > p->bound)
		return -1;
	uint64_t level = p->bound - idx;
	if (level < 26) {
		char b[2] = { '\'', (char)('a' + level) };
		return emit_n(p, b, 2);
	}
	if (emit(p, "'_") != 0)
		return -1;
	return emit_u64(p, level);
}

/* An optional binder "G": prints "for<'a, ...> " and binds its lifetimes;
 * the caller unbinds *count when its production ends. */
static int binder(struct v0 *p, uint64_t *count)
{
	if (opt_b62(p, 'G', count) != 0)
		return -1;
	if (*count == 0)
		return 0;
	if (p->bound > UINT64_MAX - *count)
		return -1;
	p->bound += *count;
	/* Printing stops at FK_MAX_NAME, so a huge count ends there. */
	if (p->skip)
		return 0;
	if (emit(p, "for<") != 0)
		return -1;
	for (uint64_t k = 0; k < *count; k++) {
		if (k && emit(p, ", ") != 0)
			return -1;
		if (print_lifetime(p, *count - k) != 0)
			return -1;
	}
	return emit(p, "> ");
}

static int generic_arg(struct v0 *p)
{
	if (eat(p, 'L')) {
		uint64_t lt;
		return b62(p, &lt) != 0 ? -1 : print_lifetime(p, lt);
	}
	if (eat(p, 'K'))
		return konst(p, 0);
	return type(p, 0);
}

/* "{generic-arg} E" as "a, b" (the caller prints the brackets). */
static int generic_args(struct v0 *p)
{
	for (int k = 0; !eat(p, 'E'); k++) {
		if (k && emit(p, ", ") != 0)
			return -1;
		if (generic_arg(p) != 0)
			return -1;
	}
	return 0;
}

/* impl-path: a disambiguator and the path of the impl's parent, which
 * the alternate form does not show. */
static int impl_path(struct v0 *p)
{
	uint64_t dis;
	if (opt_b62(p, 's', &dis) != 0)
		return -1;
	p->skip++;
	int rc = path(p, 0);
	p->skip--;
	return rc;
}

static int nested(struct v0 *p, int in_value)
{
	char ns = next(p);
	if (!is_lower(ns) && !is_upper(ns))
		return -1;
	if (path(p, in_value) != 0)
		return -1;
	uint64_t dis;
	struct ident id;
	if (opt_b62(p, 's', &dis) != 0 || ident(p, &id) != 0)
		return -1;
	/* Lowercase namespaces are the compiler's own: never shown. */
	if (is_lower(ns)) {
		if (ident_empty(&id))
			return 0;
		return emit(p, "::") != 0 ? -1 : print_ident(p, &id);
	}
	/* Closures, shims and future namespaces: "{closure#0}", "{shim:vtable#0}". */
	const char *what = ns == 'C' ? "closure" : ns == 'S' ? "shim" : NULL;
	if (emit(p, "::{") != 0 || (what ? emit(p, what) : emit_n(p, &ns, 1)) != 0)
		return -1;
	if (!ident_empty(&id) && (emit(p, ":") != 0 || print_ident(p, &id) != 0))
		return -1;
	if (emit(p, "#") != 0 || emit_u64(p, dis) != 0)
		return -1;
	return emit(p, "}");
}

static int path(struct v0 *p, int in_value)
{
	if (enter(p) != 0)
		return -1;
	size_t at = p->pos;
	int rc = -1;
	uint64_t dis;
	struct ident id;
	switch (next(p)) {
	case 'C':
		/* The alternate form shows no crate disambiguator. */
		if (opt_b62(p, 's', &dis) == 0 && ident(p, &id) == 0)
			rc = print_ident(p, &id);
		break;
	case 'M':
		if (impl_path(p) == 0 && emit(p, "<") == 0 && type(p, 0) == 0)
			rc = emit(p, ">");
		break;
	case 'X':
		if (impl_path(p) != 0)
			break;
		if (emit(p, "<") == 0 && type(p, 0) == 0 && emit(p, " as ") == 0 &&
		    path(p, 0) == 0)
			rc = emit(p, ">");
		break;
	case 'Y':
		if (emit(p, "<") == 0 && type(p, 0) == 0 && emit(p, " as ") == 0 &&
		    path(p, 0) == 0)
			rc = emit(p, ">");
		break;
	case 'N':
		rc = nested(p, in_value);
		break;
	case 'I':
		/* Generic arguments of a value take a turbofish. */
		if (path(p, in_value) == 0 && emit(p, in_value ? "::<" : "<") == 0 &&
		    generic_args(p) == 0)
			rc = emit(p, ">");
		break;
	case 'B':
		rc = backref(p, at, path, in_value);
		break;
	default:
		break;
	}
	return leave(p, rc);
}

static const char *basic_type(char c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

/* fn-sig after "F": binder, unsafe, ABI, arguments, return type. */
static int fn_sig(struct v0 *p)
{
	uint64_t nb;
	if (binder(p, &nb) != 0)
		return -1;
	if (eat(p, 'U') && emit(p, "unsafe ") != 0)
		return -1;
	if (eat(p, 'K')) {
		if (emit(p, "extern \"") != 0)
			return -1;
		if (eat(p, 'C')) {
			if (emit(p, "C") != 0)
				return -1;
		} else {
			/* The ABI string with "-" mangled as "_". */
			struct ident id;
			if (ident(p, &id) != 0 || id.puny || id.alen == 0)
				return -1;
			for (size_t k = 0; k < id.alen; k++)
				if (emit_n(p, id.ascii[k] == '_' ? "-" : id.ascii + k, 1) != 0)
					return -1;
		}
		if (emit(p, "\" ") != 0)
			return -1;
	}
	if (emit(p, "fn(") != 0)
		return -1;
	for (int k = 0; !eat(p, 'E'); k++)
		if ((k && emit(p, ", ") != 0) || type(p, 0) != 0)
			return -1;
	if (emit(p, ")") != 0)
		return -1;
	/* A unit return type is not shown. */
	if (!eat(p, 'u') && (emit(p, " -> ") != 0 || type(p, 0) != 0))
		return -1;
	p->bound -= nb;
	return 0;
}

/* A dyn-trait's path, leaving "<" open when it has generic arguments so
 * that associated type bindings join them. */
static int path_open(struct v0 *p, int *open)
{
	if (enter(p) != 0)
		return -1;
	size_t at = p->pos;
	int rc = -1;
	*open = 0;
	if (eat(p, 'B')) {
		uint64_t t;
		if (b62(p, &t) != 0 || t >= at)
			return leave(p, -1);
		if (p->skip)
			return leave(p, 0);
		size_t save = p->pos;
		p->pos = (size_t)t;
		rc = path_open(p, open);
		p->pos = save;
	} else if (eat(p, 'I')) {
		if (path(p, 0) == 0 && emit(p, "<") == 0 && generic_args(p) == 0) {
			*open = 1;
			rc = 0;
		}
	} else {
		rc = path(p, 0);
	}
	return leave(p, rc);
}

/* dyn-bounds and lifetime after "D". */
static int dyn_trait(struct v0 *p)
{
	uint64_t nb;
	if (emit(p, "dyn ") != 0 || binder(p, &nb) != 0)
		return -1;
	for (int k = 0; !eat(p, 'E'); k++) {
		int open;
		if ((k && emit(p, " + ") != 0) || path_open(p, &open) != 0)
			return -1;
		while (eat(p, 'p')) {
			struct ident id;
			if (emit(p, open ? ", " : "<") != 0 || ident(p, &id) != 0 ||
			    print_ident(p, &id) != 0 || emit(p, " = ") != 0 ||
			    type(p, 0) != 0)
				return -1;
			open = 1;
		}
		if (open && emit(p, ">") != 0)
			return -1;
	}
	p->bound -= nb;
	uint64_t lt;
	if (!eat(p, 'L') || b62(p, &lt) != 0)
		return -1;
	if (lt == 0)
		return 0;
	return emit(p, " + ") != 0 ? -1 : print_lifetime(p, lt);
}

static int type(struct v0 *p, int unused)
{
	(void)unused;
	if (enter(p) != 0)
		return -1;
	size_t at = p->pos;
	char tag = next(p);
	const char *basic = basic_type(tag);
	int rc = -1;
	uint64_t lt;
	if (basic)
		return leave(p, emit(p, basic));
	switch (tag) {
	case 'A':
		if (emit(p, "[") == 0 && type(p, 0) == 0 && emit(p, "; ") == 0 &&
		    konst(p, 1) == 0)
			rc = emit(p, "]");
		break;
	case 'S':
		if (emit(p, "[") == 0 && type(p, 0) == 0)
			rc = emit(p, "]");
		break;
	case 'T': {
		int k;
		if (emit(p, "(") != 0)
			break;
		for (k = 0; !eat(p, 'E'); k++)
			if ((k && emit(p, ", ") != 0) || type(p, 0) != 0)
				return leave(p, -1);
		/* A one-element tuple keeps its comma. */
		if (k == 1 && emit(p, ",") != 0)
			break;
		rc = emit(p, ")");
		break;
	}
	case 'R':
	case 'Q':
		if (emit(p, "&") != 0)
			break;
		if (eat(p, 'L')) {
			if (b62(p, &lt) != 0)
				break;
			if (lt && (print_lifetime(p, lt) != 0 || emit(p, " ") != 0))
				break;
		}
		if (tag == 'Q' && emit(p, "mut ") != 0)
			break;
		rc = type(p, 0);
		break;
	case 'P':
		if (emit(p, "*const ") == 0)
			rc = type(p, 0);
		break;
	case 'O':
		if (emit(p, "*mut ") == 0)
			rc = type(p, 0);
		break;
	case 'F':
		rc = fn_sig(p);
		break;
	case 'D':
		rc = dyn_trait(p);
		break;
	case 'B':
		rc = backref(p, at, type, 0);
		break;
	default:
		p->pos = at;
		rc = path(p, 0);
		break;
	}
	return leave(p, rc);
}

/* const-data: "n"? hex digits "_". Leading zeros are not significant. */
static int const_hex(struct v0 *p, int *neg, const char **hex, size_t *len)
{
	*neg = eat(p, 'n');
	size_t start = p->pos;
	while (hexval(peek(p)) >= 0)
		p->pos++;
	*hex = p->s + start;
	*len = p->pos - start;
	return eat(p, '_') ? 0 : -1;
}

/* The value of len hex digits, or -1 when it has more than 64 bits. */
static int hex_u64(const char *hex, size_t len, uint64_t *v)
{
	while (len && *hex == '0') {
		hex++;
		len--;
	}
	if (len > 16)
		return -1;
	uint64_t x = 0;
	for (size_t k = 0; k < len; k++)
		x = x << 4 | (uint64_t)hexval(hex[k]);
	*v = x;
	return 0;
}

/* A str const "e": hex bytes of UTF-8, shown as a string literal. */
static int const_str(struct v0 *p)
{
	int neg;
	const char *hex;
	size_t len;
	if (const_hex(p, &neg, &hex, &len) != 0 || neg || len % 2)
		return -1;
	if (p->skip)
		return 0;
	if (emit(p, "\"") != 0)
		return -1;
	for (size_t k = 0; k < len;) {
		/* One UTF-8 sequence, checked for shortest form and range. */
		uint32_t b0 = (uint32_t)(hexval(hex[k]) << 4 | hexval(hex[k + 1]));
		size_t need = b0 < 0x80 ? 0 : (b0 & 0xe0) == 0xc0 ? 1 :
			      (b0 & 0xf0) == 0xe0 ? 2 : (b0 & 0xf8) == 0xf0 ? 3 : 4;
		if (need == 4 || (need + 1) * 2 > len - k)
			return -1;
		uint32_t c = need ? b0 & (0x3f >> need) : b0;
		for (size_t j = 1; j <= need; j++) {
			uint32_t b = (uint32_t)(hexval(hex[k + 2 * j]) << 4 |
						hexval(hex[k + 2 * j + 1]));
			if ((b & 0xc0) != 0x80)
				return -1;
			c = c << 6 | (b & 0x3f);
		}
		static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
		if (c < min[need] || !is_scalar(c))
			return -1;
		if (put_escaped(p->o, c, '"') != 0)
			return -1;
		k += (need + 1) * 2;
	}
	return emit(p, "\"");
}

/* "{const} E" as "a, b". */
static int const_list(struct v0 *p, int *count)
{
	for (*count = 0; !eat(p, 'E'); ++*count)
		if ((*count && emit(p, ", ") != 0) || konst(p, 1) != 0)
			return -1;
	return 0;
}

/* A const of a structured type: &, &mut, array, tuple, enum variant or
 * struct ("adt_const_params"); outside a value they are put in braces as
 * Rust writes them. */
static int const_struct(struct v0 *p, char tag, int in_value)
{
	int k;
	/* A &str is written as its literal, which needs no braces. */
	if (tag == 'R' && eat(p, 'e'))
		return const_str(p);
	if (!in_value && emit(p, "{") != 0)
		return -1;
	switch (tag) {
	case 'R':
	case 'Q':
		if (emit(p, tag == 'R' ? "&" : "&mut ") != 0 || konst(p, 1) != 0)
			return -1;
		break;
	case 'e':
		if (emit(p, "*") != 0 || const_str(p) != 0)
			return -1;
		break;
	case 'A':
		if (emit(p, "[") != 0 || const_list(p, &k) != 0 || emit(p, "]") != 0)
			return -1;
		break;
	case 'T':
		if (emit(p, "(") != 0 || const_list(p, &k) != 0 ||
		    (k == 1 && emit(p, ",") != 0) || emit(p, ")") != 0)
			return -1;
		break;
	default: /* 'V' */
		if (path(p, 1) != 0)
			return -1;
		switch (next(p)) {
		case 'U':
			break;
		case 'T':
			if (emit(p, "(") != 0 || const_list(p, &k) != 0 ||
			    emit(p, ")") != 0)
				return -1;
			break;
		case 'S':
			if (emit(p, " { ") != 0)
				return -1;
			for (k = 0; !eat(p, 'E'); k++) {
				uint64_t dis;
				struct ident id;
				if ((k && emit(p, ", ") != 0) ||
				    opt_b62(p, 's', &dis) != 0 || ident(p, &id) != 0 ||
				    print_ident(p, &id) != 0 || emit(p, ": ") != 0 ||
				    konst(p, 1) != 0)
					return -1;
			}
			if (emit(p, " }") != 0)
				return -1;
			break;
		default:
			return -1;
		}
		break;
	}
	return in_value ? 0 : emit(p, "}");
}

static int const_scalar(struct v0 *p, char tag)
{
	int neg;
	const char *hex;
	size_t len;
	uint64_t v;
	if (const_hex(p, &neg, &hex, &len) != 0)
		return -1;
	switch (tag) {
	case 'b':
		if (neg || hex_u64(hex, len, &v) != 0 || v > 1)
			return -1;
		return emit(p, v ? "true" : "false");
	case 'c':
		if (neg || hex_u64(hex, len, &v) != 0 || !is_scalar(v))
			return -1;
		if (p->skip)
			return 0;
		if (emit(p, "'") != 0 || put_escaped(p->o, (uint32_t)v, '\'') != 0)
			return -1;
		return emit(p, "'");
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		if (neg)
			return -1;
		break;
	default:
		break;
	}
	if (neg && emit(p, "-") != 0)
		return -1;
	/* Past 64 bits (i128, u128) the digits are shown in hex. */
	if (hex_u64(hex, len, &v) == 0)
		return emit_u64(p, v);
	return emit(p, "0x") != 0 ? -1 : emit_n(p, hex, len);
}

static int konst(struct v0 *p, int in_value)
{
	if (enter(p) != 0)
		return -1;
	size_t at = p->pos;
	char tag = next(p);
	int rc = -1;
	switch (tag) {
	case 'p':
		rc = emit(p, "_");
		break;
	case 'B':
		rc = backref(p, at, konst, in_value);
		break;
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
	case 'b': case 'c':
		rc = const_scalar(p, tag);
		break;
	case 'e': case 'R': case 'Q': case 'A': case 'T': case 'V':
		rc = const_struct(p, tag, in_value);
		break;
	default:
		break;
	}
	return leave(p, rc);
}

/* A suffix after the mangled name: none, or "." and printable ASCII
 * (".0" of a static's clone). Shown as it is, as rustc-demangle does, but
 * for LLVM's ".llvm.<digits>" (symbolize cuts the clone suffixes it merges,
 * ".llvm.N" and ".cold" among them, before it asks). Returns the length
 * to show, or -1 when s is no suffix. */
static long suffix_len(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	if (s[0] != '.' || n > FK_MAX_NAME)
		return -1;
	for (size_t k = 1; k < n; k++)
		if (s[k] <= ' ' || s[k] > '~')
			return -1;
	if (n >= 6 && memcmp(s, ".llvm.", 6) == 0) {
		size_t k = 6;
		while (k < n && (is_digit(s[k]) || (s[k] >= 'A' && s[k] <= 'F') || s[k] == '@'))
			k++;
		if (k == n)
			return 0;
	}
	return (long)n;
}

/* s[0..n) is the name after "_R". */
static char *v0_demangle(const char *s, size_t n)
{
	/* An encoding version number is reserved; none is defined. */
	if (n == 0 || is_digit(s[0]))
		return NULL;
	size_t m = 0;
	while (m < n && s[m] != '.') {
		if ((unsigned char)s[m] >= 0x80)
			return NULL;
		m++;
	}
	long sl = suffix_len(s + m, n - m);
	if (sl < 0)
		return NULL;
	struct out o = { 0 };
	struct v0 p = { .s = s, .n = m, .o = &o };
	int rc = path(&p, 1);
	/* The instantiating crate is not shown either. */
	if (rc == 0 && p.pos < m) {
		if (!is_upper(peek(&p)))
			rc = -1;
		p.skip++;
		if (rc == 0)
			rc = path(&p, 0);
	}
	if (rc != 0 || p.pos != m || o.len == 0 || put(&o, s + m, (size_t)sl) != 0) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

/* ---- legacy ---- */

static int is_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return 0;
	for (size_t k = 1; k < n; k++)
		if (hexval(s[k]) < 0)
			return 0;
	return 1;
}

/* Walks _ZN <len><element>... E; returns the number of elements, or 0
 * when raw is not of that form with a hash element last. *start is the
 * offset of the first element, *hash that of the hash element (its length
 * digits), *end the offset just past E, *suffix the length of what
 * follows that is shown. */
static size_t legacy_scan(const char *raw, size_t len, size_t *start,
			  size_t *hash, size_t *end, size_t *suffix)
{
	size_t i;
	if (len >= 3 && memcmp(raw, "_ZN", 3) == 0)
		i = 3;
	else if (len >= 4 && memcmp(raw, "__ZN", 4) == 0)
		i = 4;
	else
		return 0;
	*start = i;
	size_t nel = 0, last = 0, lastlen = 0;
	while (i < len && raw[i] != 'E') {
		if (!is_digit(raw[i]))
			return 0;
		*hash = i;
		size_t el = 0;
		while (i < len && is_digit(raw[i])) {
			if (el > (len - i) / 10)
				return 0;
			el = el * 10 + (size_t)(raw[i++] - '0');
		}
		if (el > len - i)
			return 0;
		for (size_t k = i; k < i + el; k++)
			if ((unsigned char)raw[k] >= 0x80)
				return 0;
		last = i;
		lastlen = el;
		i += el;
		nel++;
	}
	if (i == len || nel < 2 || !is_hash(raw + last, lastlen))
		return 0;
	*end = i + 1;
	/* Anything after E but a suffix makes it some other name (a C++
	 * name's parameter types). */
	long sl = suffix_len(raw + *end, len - *end);
	if (sl < 0)
		return 0;
	*suffix = (size_t)sl;
	return nel;
}

size_t fk_symname_rust_legacylen(const char *raw, size_t len)
{
	size_t start, hash, end, suffix;
	return legacy_scan(raw, len, &start, &hash, &end, &suffix) ? end : 0;
}

/* One element with its escapes decoded; an escape that is not one stops
 * decoding and the rest is shown as it is. */
static int legacy_element(struct out *o, const char *s, size_t n)
{
	/* A leading "_" only keeps an element from starting with "$". */
	if (n >= 2 && s[0] == '_' && s[1] == '$') {
		s++;
		n--;
	}
	static const struct { const char *esc; const char *s; } esc[] = {
		{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" },
		{ "GT", ">" }, { "LP", "(" }, { "RP", ")" }, { "C", "," },
	};
	while (n) {
		if (s[0] == '.') {
			int two = n >= 2 && s[1] == '.';
			if (puts_(o, two ? "::" : ".") != 0)
				return -1;
			s += two ? 2 : 1;
			n -= two ? 2 : 1;
			continue;
		}
		if (s[0] != '$') {
			size_t k = 0;
			while (k < n && s[k] != '$' && s[k] != '.')
				k++;
			if (put(o, s, k) != 0)
				return -1;
			s += k;
			n -= k;
			continue;
		}
		const char *e = memchr(s + 1, '$', n - 1);
		if (!e)
			break;
		size_t el = (size_t)(e - s - 1);
		const char *rep = NULL;
		for (size_t k = 0; k < sizeof esc / sizeof esc[0]; k++)
			if (strlen(esc[k].esc) == el && memcmp(esc[k].esc, s + 1, el) == 0)
				rep = esc[k].s;
		if (rep) {
			if (puts_(o, rep) != 0)
				return -1;
		} else {
			/* $uXX$: a character by its code point in lowercase hex. */
			uint64_t c = 0;
			if (el < 2 || el > 9 || s[1] != 'u')
				break;
			size_t k;
			for (k = 2; k <= el && hexval(s[k]) >= 0; k++)
				c = c << 4 | (uint64_t)hexval(s[k]);
			if (k <= el || !is_scalar(c) || is_control((uint32_t)c))
				break;
			if (put_utf8(o, (uint32_t)c) != 0)
				return -1;
		}
		n -= el + 2;
		s += el + 2;
	}
	return put(o, s, n);
}

static char *legacy_demangle(const char *raw, size_t len)
{
	size_t i, hash, end, suffix;
	if (!legacy_scan(raw, len, &i, &hash, &end, &suffix))
		return NULL;
	struct out o = { 0 };
	/* Every element but the hash. */
	for (int k = 0; i < hash; k++) {
		size_t el = 0;
		while (is_digit(raw[i]))
			el = el * 10 + (size_t)(raw[i++] - '0');
		if ((k && puts_(&o, "::") != 0) || legacy_element(&o, raw + i, el) != 0) {
			free(o.buf);
			return NULL;
		}
		i += el;
	}
	if (o.len == 0 || put(&o, raw + end, suffix) != 0) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

char *fk_symname_rust(const char *raw, size_t len)
{
	if (!raw)
		return NULL;
	if (len >= 2 && raw[0] == '_' && raw[1] == 'R')
		return v0_demangle(raw + 2, len - 2);
	if (len >= 3 && memcmp(raw, "__R", 3) == 0)
		return v0_demangle(raw + 3, len - 3);
	return legacy_demangle(raw, len);
}
