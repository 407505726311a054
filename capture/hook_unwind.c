/* SPDX-License-Identifier: MIT */
/* The hook's sampling backtrace, installed as jemalloc 5.3's
 * experimental.hooks.prof_backtrace: an x86-64 unwinder over each module's
 * .eh_frame CFA rules (DWARF 5 section 6.4 "Call Frame Information", the
 * LSB's .eh_frame_hdr), with a lock-free per-PC rule cache.
 * Chosen by measurement (bench/unwind.sh, bench/README.md, "The sampling
 * backtrace"): for 27 frames libgcc's _Unwind_Backtrace, jemalloc's own,
 * takes 5.9-8.5 us a backtrace, this 0.28-0.30 us, libunwind 1.6's
 * unw_backtrace 0.27 us; at lg_sample 12 a malloc/free loop 21 frames deep
 * takes 0.13-0.14x the CPU time with this one that it takes with libgcc's.
 * - libgcc follows whatever unwind tables a JIT registered and reads the
 *   memory they point at unchecked: tests/hook/jit.t's wrong tables kill it
 *   (SIGSEGV), and knot-resolver's kresd aborts in it (tests/hook/kresd.t).
 * - libunwind is as fast and survived both here (at the generated code's
 *   PC it ended the stack, not following the garbage rbp), but would be a
 *   new library in every host, finds a PC's tables on each cache miss
 *   through dl_iterate_phdr (the loader's lock) between two sigprocmask
 *   calls (its dwarf_find_proc_info), and keeps its cache per thread; this
 *   file needs neither lock nor library.
 * This one allocates nothing, takes no lock (glibc 2.35's _dl_find_object
 * is lock-free), uses initial-exec TLS only, and reads the stack only
 * inside the readable mapping that holds the current thread's stack
 * pointer, found in /proc/self/maps through raw system calls.
 * A frame whose PC has no FDE (JIT code, hand-written assembly without
 * CFI, a corrupt stack), or whose rule it cannot follow (a DWARF
 * expression other than gcc's stack realignment, a signal frame, a CFA in
 * a register other than rsp or rbp), is the last frame of the stack, as
 * libgcc makes it. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hook_int.h"

#define NO_SAN __attribute__((no_sanitize("address", "undefined")))

/* DWARF register numbers (x86-64 psABI, figure 3.36). */
enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* The rule of one PC, after running its CIE's and FDE's programs. */
enum cfa_kind {
	CFA_NONE,      /* cannot unwind from here: the stack ends */
	CFA_RSP,       /* CFA = rsp + off */
	CFA_RBP,       /* CFA = rbp + off */
	CFA_RBPDEREF,  /* CFA = *(rbp + off): gcc's stack realignment */
	CFA_END,       /* the return address is undefined: the outermost frame */
};
enum reg_kind { REG_SAME, REG_AT_CFA, REG_AT_RBP, REG_BAD };

struct rule {
	enum cfa_kind cfa;
	long cfa_off;
	enum reg_kind rbp;
	long rbp_off;
	long ra_off;   /* the return address is at CFA + ra_off */
};

/* ---- the per-PC cache ----
 * Open addressing by a hash of the PC, no probing: a slot holds the last
 * PC that landed there. Two words per slot, each written atomically; the
 * rule word repeats the PC's low 32 bits, so a reader that meets a slot
 * half rewritten by another thread sees the mismatch and takes the slow
 * path. The two words share a cache line. */
#define CACHE_BITS 14
struct slot {
	_Atomic uint64_t pc, rule;
};
static struct slot cache[1u << CACHE_BITS];

static unsigned slot(uintptr_t pc)
{
	return (unsigned)(((uint64_t)pc * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS));
}

/* Packs a rule into 32 bits: kind 3, rbp kind 2, rbp_off/8 signed 8,
 * cfa_off signed 19 bits; the return address must be at CFA - 8 (every
 * x86-64 frame gcc and clang make). 0 when it does not fit. */
static uint32_t pack(const struct rule *r)
{
	long ro = r->rbp_off / 8, co = r->cfa_off;

	if (r->ra_off != -8 && r->cfa != CFA_NONE && r->cfa != CFA_END)
		return 0;
	if (r->rbp == REG_BAD || r->rbp_off % 8 || ro < -128 || ro > 127 ||
	    co < -(1l << 18) || co >= (1l << 18))
		return 0;
	return (uint32_t)r->cfa | (uint32_t)r->rbp << 3 | ((uint32_t)ro & 0xff) << 5 |
	       ((uint32_t)co & 0x7ffff) << 13;
}

static void unpack(uint32_t v, struct rule *r)
{
	r->cfa = (enum cfa_kind)(v & 7);
	r->rbp = (enum reg_kind)((v >> 3) & 3);
	r->rbp_off = (long)(int8_t)((v >> 5) & 0xff) * 8;
	r->cfa_off = ((long)(v >> 13) ^ (1l << 18)) - (1l << 18);
	r->ra_off = -8;
}

/* ---- reading .eh_frame ---- */

/* A bounded reader over [p, end). */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_u(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, n);
	r->p += n;
	return v;
}

/* A LEB128 number; signed sign-extends its last byte's bit 6. */
static uint64_t rd_leb(struct rd *r, int is_signed)
{
	uint64_t v = 0;

	for (unsigned sh = 0; sh < 64; sh += 7) {
		uint8_t b = (uint8_t)rd_u(r, 1);

		if (r->bad)
			return 0;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			if (is_signed && sh + 7 < 64 && (b & 0x40))
				v |= ~0ull << (sh + 7);
			return v;
		}
	}
	r->bad = 1;
	return 0;
}

static uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, 0);
}

static int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, 1);
}

/* A DW_EH_PE-encoded pointer; datarel is relative to base. Indirect and
 * text-relative values are refused (none of the fields we follow use them;
 * the personality's is skipped by its size). */
static uintptr_t rd_enc(struct rd *r, uint8_t enc, uintptr_t base, int value_only)
{
	uintptr_t at = (uintptr_t)r->p;
	uint64_t v;

	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = rd_u(r, 8); break;
	case 0x01: v = rd_uleb(r); break;
	case 0x02: v = rd_u(r, 2); break;
	case 0x03: v = rd_u(r, 4); break;
	case 0x04: v = rd_u(r, 8); break;
	case 0x09: v = (uint64_t)rd_sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd_u(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd_u(r, 4); break;
	case 0x0c: v = rd_u(r, 8); break;
	default: r->bad = 1; return 0;
	}
	if (value_only)
		return (uintptr_t)v;
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	case 0x30: v += base; break;
	default: r->bad = 1; return 0;
	}
	if (enc & 0x80)
		r->bad = 1;
	return (uintptr_t)v;
}

/* v times a data alignment factor, wrapping rather than overflowing on a
 * corrupt table. */
static long scaled(uint64_t v, int64_t f)
{
	return (long)(int64_t)(v * (uint64_t)f);
}

/* Remembered states (DW_CFA_remember_state) kept per program. */
#define REMEMBER_MAX 8

/* One column we follow: how rbp or the return address is recovered. */
struct col {
	enum reg_kind k;
	long off;
};

struct state {
	enum cfa_kind cfa;
	int cfa_reg;
	long cfa_off;
	struct col rbp, ra;
};

static void set_col(struct state *s, uint64_t reg, enum reg_kind k, long off)
{
	if (reg == REG_RBP) {
		s->rbp.k = k;
		s->rbp.off = off;
	} else if (reg == REG_RA) {
		s->ra.k = k;
		s->ra.off = off;
	}
}

/* Runs a CFA program up to (not past) target; init holds the CIE's state
 * for DW_CFA_restore. 0, or -1 on an instruction we do not follow. */
static int run_cfa(struct rd *r, uintptr_t loc, uintptr_t target, uint64_t caf, int64_t daf,
		   struct state *s, const struct state *init, uint8_t fde_enc)
{
	struct state stack[REMEMBER_MAX];
	unsigned depth = 0;

	while (r->p < r->end && !r->bad) {
		uint8_t op = (uint8_t)rd_u(r, 1), lo = op & 0x3f;
		uint64_t reg, adv = 0;
		int64_t off;

		switch (op >> 6) {
		case 1: adv = lo * caf; goto advance;
		case 2: set_col(s, lo, REG_AT_CFA, scaled(rd_uleb(r), daf)); continue;
		case 3: set_col(s, lo, lo == REG_RBP ? init->rbp.k : init->ra.k,
				lo == REG_RBP ? init->rbp.off : init->ra.off);
			continue;
		default: break;
		}
		switch (op) {
		case 0x00: continue;                                   /* nop */
		case 0x01:                                             /* set_loc */
			loc = rd_enc(r, fde_enc, 0, 0);
			if (loc > target)
				return 0;
			continue;
		case 0x02: adv = rd_u(r, 1) * caf; goto advance;
		case 0x03: adv = rd_u(r, 2) * caf; goto advance;
		case 0x04: adv = rd_u(r, 4) * caf; goto advance;
		case 0x05:                                             /* offset_extended */
			reg = rd_uleb(r);
			set_col(s, reg, REG_AT_CFA, scaled(rd_uleb(r), daf));
			continue;
		case 0x06:                                             /* restore_extended */
			reg = rd_uleb(r);
			set_col(s, reg, reg == REG_RBP ? init->rbp.k : init->ra.k,
				reg == REG_RBP ? init->rbp.off : init->ra.off);
			continue;
		case 0x07:                                             /* undefined */
			reg = rd_uleb(r);
			if (reg == REG_RA)
				s->ra.k = REG_BAD, s->ra.off = 1;     /* the end */
			else
				set_col(s, reg, REG_BAD, 0);
			continue;
		case 0x08:                                             /* same_value */
			set_col(s, rd_uleb(r), REG_SAME, 0);
			continue;
		case 0x09:                                             /* register */
			reg = rd_uleb(r);
			(void)rd_uleb(r);
			set_col(s, reg, REG_BAD, 0);
			continue;
		case 0x0a:                                             /* remember_state */
			if (depth == REMEMBER_MAX)
				return -1;
			stack[depth++] = *s;
			continue;
		case 0x0b:                                             /* restore_state */
			if (depth == 0)
				return -1;
			/* The CFA rule comes back too, as libgcc and gcc's
			 * epilogues have it. */
			*s = stack[--depth];
			continue;
		case 0x0c:                                             /* def_cfa */
			s->cfa_reg = (int)rd_uleb(r);
			s->cfa_off = (long)rd_uleb(r);
			s->cfa = CFA_RSP;
			continue;
		case 0x0d:                                             /* def_cfa_register */
			s->cfa_reg = (int)rd_uleb(r);
			if (s->cfa != CFA_RSP && s->cfa != CFA_RBP)
				s->cfa_off = 0;
			s->cfa = CFA_RSP;
			continue;
		case 0x0e:                                             /* def_cfa_offset */
			s->cfa_off = (long)rd_uleb(r);
			continue;
		case 0x0f: {                                           /* def_cfa_expression */
			uint64_t n = rd_uleb(r);
			const uint8_t *e = r->p;
			struct rd x;

			if (r->bad || n > (uint64_t)(r->end - r->p))
				return -1;
			r->p += n;
			/* gcc's realigned frames: DW_OP_breg6 OFF; DW_OP_deref. */
			x.p = e, x.end = e + n, x.bad = 0;
			if (rd_u(&x, 1) != 0x76)
				goto unfollowed_cfa;
			off = rd_sleb(&x);
			if (rd_u(&x, 1) != 0x06 || x.bad || x.p != x.end)
				goto unfollowed_cfa;
			s->cfa = CFA_RBPDEREF;
			s->cfa_reg = REG_RBP;
			s->cfa_off = (long)off;
			continue;
unfollowed_cfa:
			s->cfa = CFA_NONE;
			continue;
		}
		case 0x10:                                             /* expression */
		case 0x16: {                                           /* val_expression */
			uint64_t n;
			const uint8_t *e;
			struct rd x;

			reg = rd_uleb(r);
			n = rd_uleb(r);
			e = r->p;
			if (r->bad || n > (uint64_t)(r->end - r->p))
				return -1;
			r->p += n;
			/* rbp saved at rbp + OFF (the realigned frames again). */
			x.p = e, x.end = e + n, x.bad = 0;
			if (op == 0x10 && reg == REG_RBP && rd_u(&x, 1) == 0x76) {
				off = rd_sleb(&x);
				if (!x.bad && x.p == x.end) {
					set_col(s, reg, REG_AT_RBP, (long)off);
					continue;
				}
			}
			set_col(s, reg, REG_BAD, 0);
			continue;
		}
		case 0x11:                                             /* offset_extended_sf */
			reg = rd_uleb(r);
			set_col(s, reg, REG_AT_CFA, scaled((uint64_t)rd_sleb(r), daf));
			continue;
		case 0x12:                                             /* def_cfa_sf */
			s->cfa_reg = (int)rd_uleb(r);
			s->cfa_off = scaled((uint64_t)rd_sleb(r), daf);
			s->cfa = CFA_RSP;
			continue;
		case 0x13:                                             /* def_cfa_offset_sf */
			s->cfa_off = scaled((uint64_t)rd_sleb(r), daf);
			continue;
		case 0x14: case 0x15:                                  /* val_offset(_sf) */
			reg = rd_uleb(r);
			if (op == 0x14)
				(void)rd_uleb(r);
			else
				(void)rd_sleb(r);
			set_col(s, reg, REG_BAD, 0);
			continue;
		case 0x2e: (void)rd_uleb(r); continue;                 /* GNU_args_size */
		case 0x2f:                                             /* GNU_negative_offset_extended */
			reg = rd_uleb(r);
			set_col(s, reg, REG_AT_CFA, scaled(0 - rd_uleb(r), daf));
			continue;
		default:
			return -1;
		}
advance:
		if (loc + adv > target)
			return 0;
		loc += adv;
	}
	return r->bad ? -1 : 0;
}

/* Decodes the CIE at cie (bounded by [lo, hi)). */
struct cie {
	uint64_t caf;
	int64_t daf;
	uint8_t fde_enc;
	int has_aug;
	int signal;
	struct rd prog;
};

static int read_cie(const uint8_t *cie, uintptr_t lo, uintptr_t hi, struct cie *c)
{
	struct rd r = { cie, (const uint8_t *)hi, 0 };
	const char *aug;
	uint64_t len;
	uint8_t ver;
	size_t alen;

	if ((uintptr_t)cie < lo || (uintptr_t)cie >= hi)
		return -1;
	len = rd_u(&r, 4);
	if (r.bad || len == 0 || len == 0xffffffffu || len > (uint64_t)(r.end - r.p))
		return -1;
	r.end = r.p + len;
	if (rd_u(&r, 4) != 0)
		return -1;
	ver = (uint8_t)rd_u(&r, 1);
	if (ver != 1 && ver != 3)
		return -1;
	aug = (const char *)r.p;
	alen = strnlen(aug, (size_t)(r.end - r.p));
	if (alen == (size_t)(r.end - r.p))
		return -1;
	r.p += alen + 1;
	c->caf = rd_uleb(&r);
	c->daf = rd_sleb(&r);
	if ((ver == 1 ? rd_u(&r, 1) : rd_uleb(&r)) != REG_RA)
		return -1;
	c->fde_enc = 0;
	c->has_aug = aug[0] == 'z';
	c->signal = 0;
	if (c->has_aug) {
		uint64_t n = rd_uleb(&r);
		struct rd a;

		if (r.bad || n > (uint64_t)(r.end - r.p))
			return -1;
		a.p = r.p, a.end = r.p + n, a.bad = 0;
		r.p += n;
		for (const char *q = aug + 1; *q; q++) {
			uint8_t e;

			switch (*q) {
			case 'R': c->fde_enc = (uint8_t)rd_u(&a, 1); break;
			case 'L': (void)rd_u(&a, 1); break;
			case 'P':
				e = (uint8_t)rd_u(&a, 1);
				(void)rd_enc(&a, e & 0x7f, 0, 1);
				break;
			case 'S': c->signal = 1; break;
			default: return -1;
			}
		}
		if (a.bad)
			return -1;
	} else if (aug[0]) {
		return -1;
	}
	if (r.bad)
		return -1;
	c->prog = r;
	return 0;
}

/* The rule at pc (a return address minus one) from its module's
 * .eh_frame_hdr. 0, or -1 when there is none: no module, no FDE, a table
 * we do not read. */
static int find_rule(uintptr_t pc, struct rule *out)
{
	struct dl_find_object fo;
	const uint8_t *hdr;
	uintptr_t lo, hi, tab, fde = 0, begin, range, eh;
	uint64_t count;
	struct rd r;
	struct cie c;
	struct state s, init;
	size_t a, b;

	if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return -1;
	lo = (uintptr_t)fo.dlfo_map_start;
	hi = (uintptr_t)fo.dlfo_map_end;
	hdr = fo.dlfo_eh_frame;
	if ((uintptr_t)hdr < lo || (uintptr_t)hdr + 4 > hi || hdr[0] != 1)
		return -1;
	r.p = hdr + 4, r.end = (const uint8_t *)hi, r.bad = 0;
	eh = rd_enc(&r, hdr[1], (uintptr_t)hdr, 0);
	count = rd_enc(&r, hdr[2], (uintptr_t)hdr, 0);
	(void)eh;
	/* ld writes the table as datarel sdata4 pairs; nothing else is read. */
	if (r.bad || hdr[3] != 0x3b || count == 0 || count > (uint64_t)(hi - (uintptr_t)r.p) / 8)
		return -1;
	tab = (uintptr_t)r.p;
	a = 0, b = (size_t)count;
	while (b - a > 1) {
		size_t m = a + (b - a) / 2;
		int32_t v;

		memcpy(&v, (const void *)(tab + m * 8), 4);
		if ((uintptr_t)hdr + (intptr_t)v <= pc)
			a = m;
		else
			b = m;
	}
	{
		int32_t v0, v1;

		memcpy(&v0, (const void *)(tab + a * 8), 4);
		memcpy(&v1, (const void *)(tab + a * 8 + 4), 4);
		if ((uintptr_t)hdr + (intptr_t)v0 > pc)
			return -1;
		fde = (uintptr_t)hdr + (intptr_t)v1;
	}
	if (fde < lo || fde + 8 > hi)
		return -1;
	r.p = (const uint8_t *)fde, r.end = (const uint8_t *)hi, r.bad = 0;
	{
		uint64_t len = rd_u(&r, 4), cptr;
		const uint8_t *at;

		if (r.bad || len == 0 || len == 0xffffffffu || len > (uint64_t)(r.end - r.p))
			return -1;
		r.end = r.p + len;
		at = r.p;
		cptr = rd_u(&r, 4);
		if (r.bad || cptr == 0 || cptr > (uintptr_t)at - lo)
			return -1;
		if (read_cie(at - cptr, lo, hi, &c) < 0)
			return -1;
	}
	begin = rd_enc(&r, c.fde_enc, 0, 0);
	range = rd_enc(&r, c.fde_enc & 0x0f, 0, 1);
	if (r.bad || pc < begin || pc - begin >= range)
		return -1;
	if (c.has_aug) {
		uint64_t n = rd_uleb(&r);

		if (r.bad || n > (uint64_t)(r.end - r.p))
			return -1;
		r.p += n;
	}
	/* A signal frame's rules restore every register from the kernel's
	 * frame: not followed. */
	if (c.signal)
		return -1;
	memset(&s, 0, sizeof s);
	s.cfa = CFA_NONE;
	s.rbp.k = REG_SAME;
	s.ra.k = REG_BAD;
	if (run_cfa(&c.prog, begin, ~(uintptr_t)0, c.caf, c.daf, &s, &s, c.fde_enc) < 0)
		return -1;
	init = s;
	if (run_cfa(&r, begin, pc, c.caf, c.daf, &s, &init, c.fde_enc) < 0)
		return -1;
	memset(out, 0, sizeof *out);
	if (s.ra.k == REG_BAD && s.ra.off == 1) {
		out->cfa = CFA_END;
		return 0;
	}
	if (s.cfa == CFA_RSP && s.cfa_reg == REG_RBP)
		s.cfa = CFA_RBP;
	else if (s.cfa == CFA_RSP && s.cfa_reg != REG_RSP)
		s.cfa = CFA_NONE;
	out->cfa = s.cfa;
	out->cfa_off = s.cfa_off;
	out->rbp = s.rbp.k;
	out->rbp_off = s.rbp.off;
	if (s.ra.k != REG_AT_CFA)
		out->cfa = CFA_NONE;
	out->ra_off = s.ra.off;
	return 0;
}

/* The rule at a return address, from the cache or the tables. 0 or -1. */
static int rule_at(uintptr_t ra, struct rule *out)
{
	uintptr_t pc = ra - 1;
	unsigned i = slot(pc);
	uint64_t k = atomic_load_explicit(&cache[i].pc, memory_order_acquire);
	uint64_t v = atomic_load_explicit(&cache[i].rule, memory_order_acquire);
	uint32_t p;

	if (k == pc && (uint32_t)(v >> 32) == (uint32_t)pc && (uint32_t)v) {
		unpack((uint32_t)v, out);
		return 0;
	}
	if (find_rule(pc, out) < 0)
		return -1;
	if ((p = pack(out)) != 0) {
		atomic_store_explicit(&cache[i].rule, (uint64_t)(uint32_t)pc << 32 | p,
				      memory_order_release);
		atomic_store_explicit(&cache[i].pc, pc, memory_order_release);
	}
	return 0;
}

/* ---- the current thread's stack ---- */

/* The readable mappings that held the stack pointer, per thread: a few,
 * for a thread that switches stacks (a signal's alternate stack,
 * coroutines). */
#define STACKS 4
static __thread uintptr_t stk_lo[STACKS] __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stk_hi[STACKS] __attribute__((tls_model("initial-exec")));
static __thread unsigned stk_next __attribute__((tls_model("initial-exec")));

/* Finds the mapping of /proc/self/maps holding sp, with system calls only
 * (no stdio, no allocation, no cancellation point). 0 or -1. */
static int stack_bounds(uintptr_t sp, uintptr_t *lo, uintptr_t *hi)
{
	char buf[2048];
	uintptr_t a = 0, b = 0;
	int fd, field = 0, found = -1, readable = 0;
	long n;

	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* field: 0 start, 1 end, 2 permissions' first letter, 3 rest of line. */
	while (found < 0 && (n = syscall(SYS_read, fd, buf, sizeof buf)) > 0) {
		for (long i = 0; i < n; i++) {
			char ch = buf[i];
			int d = ch >= '0' && ch <= '9' ? ch - '0' :
				ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;

			if (ch == '\n') {
				if (field == 3 && readable && a <= sp && sp < b) {
					found = 0;
					break;
				}
				field = 0, a = b = 0, readable = 0;
			} else if (field == 0) {
				if (d >= 0)
					a = a << 4 | (uintptr_t)d;
				else
					field = 1;
			} else if (field == 1) {
				if (d >= 0)
					b = b << 4 | (uintptr_t)d;
				else
					field = 2;
			} else if (field == 2) {
				readable = ch == 'r';
				field = 3;
			}
		}
	}
	syscall(SYS_close, fd);
	if (found == 0) {
		*lo = a;
		*hi = b;
	}
	return found;
}

/* ---- the walk ---- */

static inline int in_stack(uintptr_t addr, uintptr_t lo, uintptr_t hi)
{
	return addr >= lo && addr <= hi - 8 && !(addr & 7);
}

/* Walks from the caller's state (pc, sp, fp) leaf first into vec. */
NO_SAN static unsigned walk(void **vec, unsigned max, uintptr_t pc, uintptr_t sp, uintptr_t fp)
{
	uintptr_t lo = 0, hi = 0;
	unsigned n = 0, k;

	for (k = 0; k < STACKS; k++)
		if (stk_lo[k] <= sp && sp < stk_hi[k])
			break;
	if (k < STACKS) {
		hi = stk_hi[k];
	} else {
		/* No stack known: no frame can be read (the stack is empty). */
		if (stack_bounds(sp, &lo, &hi) < 0)
			return 0;
		k = stk_next++ % STACKS;
		stk_lo[k] = lo;
		stk_hi[k] = hi;
	}
	lo = sp;
	while (n < max && pc) {
		struct rule r;
		uintptr_t cfa, at;

		vec[n++] = (void *)pc;
		if (rule_at(pc, &r) < 0)
			break;
		switch (r.cfa) {
		case CFA_RSP: cfa = sp + (uintptr_t)r.cfa_off; break;
		case CFA_RBP: cfa = fp + (uintptr_t)r.cfa_off; break;
		case CFA_RBPDEREF:
			at = fp + (uintptr_t)r.cfa_off;
			if (!in_stack(at, lo, hi))
				return n;
			cfa = *(const uintptr_t *)at;
			break;
		default:
			return n;
		}
		/* Every frame lies above the one it called, in this stack. */
		if (cfa <= sp || !in_stack(cfa + (uintptr_t)r.ra_off, lo, hi))
			break;
		if (r.rbp == REG_AT_CFA || r.rbp == REG_AT_RBP) {
			at = (r.rbp == REG_AT_CFA ? cfa : fp) + (uintptr_t)r.rbp_off;
			if (!in_stack(at, lo, hi))
				break;
			fp = *(const uintptr_t *)at;
		} else if (r.rbp == REG_BAD) {
			fp = 0;
		}
		pc = *(const uintptr_t *)(cfa + (uintptr_t)r.ra_off);
		sp = cfa;
	}
	return n;
}

/* jemalloc's hook. Built with a frame pointer (capture/build.mk), so its
 * own frame gives the caller's registers: the stack starts in jemalloc,
 * where libgcc's does, without this function. */
NO_SAN __attribute__((noinline)) static void backtrace_hook(void **vec, unsigned *len, unsigned max)
{
	const uintptr_t *f = __builtin_frame_address(0);

	*len = walk(vec, max, f[1], (uintptr_t)(f + 2), f[0]);
}

/* ---- installing it ---- */

typedef void (*bt_fn)(void **, unsigned *, unsigned);

static struct {
	char desc[256];
	atomic_int done;
} unw = { .desc = "jemalloc: the hook has not looked for jemalloc yet" };

void fk_unwind_install(void)
{
	const struct fk_env *env = fk_env_get();
	struct fk_je_copy cp;
	size_t n = 0, sz;
	const char *note = "";
	bt_fn old = NULL, mine = backtrace_hook;
	int rc;

	if (atomic_exchange(&unw.done, 1))
		return;
	if (fk_je_check(NULL) != FK_JE_OK || fk_je_chosen(&cp, &n, &note) < 0) {
		snprintf(unw.desc, sizeof unw.desc, "jemalloc: no jemalloc with profiling started");
		return;
	}
	if (env->unwind == FK_UNWIND_JEMALLOC) {
		snprintf(unw.desc, sizeof unw.desc, "jemalloc: FLAMEKIT_UNWIND=jemalloc");
		return;
	}
	if (env->unwind == FK_UNWIND_OTHER)
		fk_log("FLAMEKIT_UNWIND='%s' is neither jemalloc nor flamekit: using flamekit's",
		       env->unwind_text);
	sz = sizeof old;
	rc = fk_je_ctl("experimental.hooks.prof_backtrace", &old, &sz, NULL, 0);
	if (rc != 0 || !old) {
		snprintf(unw.desc, sizeof unw.desc, "jemalloc: jemalloc %.40s (%.120s) has no "
			 "experimental.hooks.prof_backtrace", cp.version, cp.module);
		return;
	}
	if (old == mine) {
		snprintf(unw.desc, sizeof unw.desc, "flamekit");
		return;
	}
	rc = fk_je_ctl("experimental.hooks.prof_backtrace", NULL, NULL, &mine, sizeof mine);
	if (rc != 0)
		snprintf(unw.desc, sizeof unw.desc, "jemalloc: experimental.hooks.prof_backtrace "
			 "refused the hook's backtrace (%s)", strerror(rc));
	else
		snprintf(unw.desc, sizeof unw.desc, "flamekit");
}

const char *fk_unwind_name(void)
{
	return unw.desc;
}
