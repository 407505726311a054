/* SPDX-License-Identifier: MIT */
/* The merged stack tree of a flame graph: frames are merged one by one from
 * the root (so "main;foo" and "main;foo;baz" share one foo, unlike tools that
 * sort whole lines), names are interned, nodes live in one array. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "bigmem.h"
#include "limits.h"
#include "grow.h"
#include "hash.h"
#include "render_int.h"

/* Names are hashed 8 bytes at a time (core/hash.h's word hash), and the
 * same words that find a frame's end (its ';') feed the hash, so a frame's
 * bytes are read once (perf on bench/gen-synth.py's input: the byte loop
 * looking for ';', the byte loop comparing a line with the last and
 * hashing the name again were 45 % of the instructions). hash_bytes(s, n)
 * and scan_frame() give the same value for the same name. Only used for
 * in-memory tables. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	return fk_hash_rest(FK_HASH_SEED, s, n, n);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The bytes of w equal to ';' have their high bit set in the result; the
 * lowest set bit is exact (the higher ones may not be). */
static inline uint64_t semis(uint64_t w)
{
	uint64_t x = w ^ 0x3b3b3b3b3b3b3b3bULL;

	return (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
}

/* Returns the end of the frame that starts at s[pos] (the offset of the
 * next ';', or n) and its hash in *hp, equal to hash_bytes(s + pos, end -
 * pos). Reads nothing at or past s[n]. */
static size_t scan_frame(const char *s, size_t pos, size_t n, uint64_t *hp)
{
	uint64_t h = FK_HASH_SEED, w, m;
	size_t p = pos;

	for (;; p += 8) {
		if (n - p < 8) {
			w = 0;
			memcpy(&w, s + p, n - p);
			/* The zero padding holds no ';'. */
			m = semis(w);
			break;
		}
		memcpy(&w, s + p, 8);
		if ((m = semis(w)) != 0)
			break;
		h = fk_hash_word(h, w);
	}
	if (m) {
		unsigned k = (unsigned)__builtin_ctzll(m) >> 3;
		w &= ((uint64_t)1 << (8 * k)) - 1;
		p += k;
	} else {
		p = n;
	}
	*hp = fk_hash_end(h, w, p - pos);
	return p;
}

/* Length of the common prefix of a and b, both at least m bytes. */
static size_t common_prefix(const char *a, const char *b, size_t m)
{
	size_t c = 0;
	uint64_t x, y;

	for (; m - c >= 8; c += 8) {
		memcpy(&x, a + c, 8);
		memcpy(&y, b + c, 8);
		if (x != y)
			return c + ((unsigned)__builtin_ctzll(x ^ y) >> 3);
	}
	while (c < m && a[c] == b[c])
		c++;
	return c;
}
#else
static size_t scan_frame(const char *s, size_t pos, size_t n, uint64_t *hp)
{
	size_t p = pos;

	while (p < n && s[p] != ';')
		p++;
	*hp = hash_bytes(s + pos, p - pos);
	return p;
}

static size_t common_prefix(const char *a, const char *b, size_t m)
{
	size_t c = 0;

	while (c < m && a[c] == b[c])
		c++;
	return c;
}
#endif

static uint64_t hash_pair(uint32_t a, uint32_t b)
{
	/* splitmix64's finalizer: every input bit reaches the low bits. */
	uint64_t h = (uint64_t)a << 32 | b;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Words of a bitmap of n bits. */
#define BITWORDS(n) (((size_t)(n) + 63) / 64)

static int oom(struct fk_err *err)
{
	return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
}

int fk_tree_init(struct fk_tree *t, struct fk_err *err)
{
	memset(t, 0, sizeof *t);
	t->capnames = 1024;
	t->names = malloc(t->capnames * sizeof *t->names);
	t->ntabmask = 2047;
	t->ntab = calloc(t->ntabmask + 1, sizeof *t->ntab);
	/* The node array starts at one huge page: one page fault, not 512,
	 * for its first 65536 nodes (the kernel aligns the mapping). */
	t->capnodes = FK_HUGE_PAGE / sizeof *t->nodes;
	t->nodes = fk_big_alloc(t->capnodes * sizeof *t->nodes);
	t->manybits = calloc(BITWORDS(t->capnodes), sizeof *t->manybits);
	t->capuses = 1024;
	t->uses = calloc(t->capuses, sizeof *t->uses);
	t->capseveral = 1024;
	t->several = malloc(t->capseveral * sizeof *t->several);
	t->ctabmask = 2047;
	t->ctab = calloc(t->ctabmask + 1, sizeof *t->ctab);
	t->cappath = t->capscan = 64;
	t->path = malloc(t->cappath * sizeof *t->path);
	t->pacc = calloc(t->cappath, sizeof *t->pacc);
	t->fend = malloc(t->capscan * sizeof *t->fend);
	t->fhash = malloc(t->capscan * sizeof *t->fhash);
	t->nid = malloc(t->capscan * sizeof *t->nid);
	t->strs = fk_arena_new();
	if (!t->strs || !t->names || !t->ntab || !t->nodes || !t->ctab || !t->path || !t->fend ||
	    !t->fhash || !t->nid || !t->pacc || !t->manybits || !t->uses || !t->several) {
		fk_tree_release(t);
		return oom(err);
	}
	/* Name 0 is the root's "all"; node 0 the root. */
	t->names[0] = (struct fk_fname){ "all", 3, 0 };
	t->nnames = 1;
	memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	t->nnodes = 1;
	t->uses[0] = 1;
	return 0;
}

void fk_tree_release(struct fk_tree *t)
{
	fk_arena_free(t->strs);
	free(t->names);
	free(t->ntab);
	fk_big_free(t->nodes, t->capnodes * sizeof *t->nodes);
	free(t->ctab);
	free(t->bself);
	free(t->xrow);
	free(t->xvals);
	free(t->btotal);
	free(t->vself);
	free(t->vtotal);
	free(t->path);
	free(t->pacc);
	free(t->fend);
	free(t->fhash);
	free(t->nid);
	free(t->uses);
	free(t->manybits);
	free(t->several);
	memset(t, 0, sizeof *t);
}

/* Doubles an open-addressing table of linear probing, the name table's
 * or the child table's: *tab holds *mask + 1 slots of elsize bytes, all
 * zero when empty; used(slot) says whether a slot holds an entry, hash(slot)
 * the hash it was placed by. The entries hold their keys, so only the old
 * table is read. 0, or -1 when out of memory (the table is kept). */
static int rehash(void **tab, uint32_t *mask, size_t elsize,
		  int (*used)(const void *slot), uint64_t (*hash)(const void *slot))
{
	uint32_t nmask = *mask * 2 + 1, i;
	const char *old = *tab;
	char *nt = calloc((size_t)nmask + 1, elsize);

	if (!nt)
		return -1;
	for (i = 0; i <= *mask; i++) {
		const char *e = old + (size_t)i * elsize;
		uint64_t h;

		if (!used(e))
			continue;
		for (h = hash(e) & nmask; used(nt + h * elsize); h = (h + 1) & nmask)
			;
		memcpy(nt + h * elsize, e, elsize);
	}
	free(*tab);
	*tab = nt;
	*mask = nmask;
	return 0;
}

static int name_used(const void *slot)
{
	return ((const struct fk_nentry *)slot)->s != NULL;
}

static uint64_t name_hash(const void *slot)
{
	return ((const struct fk_nentry *)slot)->hash;
}

/* Whether a[0..n) and b[0..n) are equal: 8 bytes at a time, inline (the
 * call to memcmp and its dispatch on size cost more than the compare on
 * names of 10-100 bytes). */
static int same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i;

	if (n < 8) {
		for (i = 0; i < n; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	/* The last 8 bytes, overlapping the words before. */
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* Returns the id of name s[0..n) of hash hash (hash_bytes), adding it;
 * UINT32_MAX when out of memory. */
static uint32_t intern(struct fk_tree *t, const char *s, size_t n, uint64_t hash)
{
	uint64_t h = hash & t->ntabmask;
	uint32_t id;

	/* The whole hash is in the slot: bytes are compared on a match only. */
	for (; t->ntab[h].s; h = (h + 1) & t->ntabmask)
		if (t->ntab[h].hash == hash && t->ntab[h].len == n &&
		    same_bytes(t->ntab[h].s, s, n))
			return t->ntab[h].id;
	if (t->nnames == t->capnames) {
		struct fk_fname *nn;
		if (t->capnames > UINT32_MAX / 4)
			return UINT32_MAX;
		nn = fk_resize(t->names, (size_t)t->capnames * 2, (size_t)t->capnames * 2, sizeof *nn);
		if (!nn)
			return UINT32_MAX;
		t->names = nn;
		t->capnames *= 2;
	}
	id = t->nnames;
	if (!(s = fk_arena_strndup(t->strs, s, n)))
		return UINT32_MAX;
	t->nnames++;
	t->names[id] = (struct fk_fname){ s, (uint32_t)n, 0 };
	t->ntab[h] = (struct fk_nentry){ s, hash, (uint32_t)n, id };
	if ((uint64_t)t->nnames * 2 > t->ntabmask &&
	    rehash((void **)&t->ntab, &t->ntabmask, sizeof *t->ntab, name_used, name_hash) < 0)
		return UINT32_MAX;
	return id;
}

/* A node with at most FEW_KIDS children is searched by its child list;
 * only the children of wider nodes go into the child table (and the node
 * into manybits). Most nodes of a heap profile have one child, so most
 * lookups and inserts then touch no table at all (perf on
 * bench/gen-synth.py's input: the table's cache misses and page faults
 * were a third of render-flame's time). */
#define FEW_KIDS 4

static int many(const struct fk_tree *t, uint32_t n)
{
	return (int)(t->manybits[n >> 6] >> (n & 63)) & 1;
}

/* The child table grows by rehash: its entries hold their keys, so the
 * node array is not walked (perf: walking all the nodes on every growth
 * was 5 % of the time on bench/gen-synth.py's input). The tables come
 * from the heap, which is on huge pages: fresh mappings of each size took
 * 1900 4 KiB page faults. */
static int child_used(const void *slot)
{
	return ((const struct fk_centry *)slot)->id != 0;
}

static uint64_t child_hash(const void *slot)
{
	const struct fk_centry *c = slot;

	return hash_pair(c->parent, c->name);
}

/* What finishing would otherwise walk every node for is kept as nodes
 * are made (on the thread placing lines, which waits for the reader
 * anyway): each name's uses and the nodes with several children. */
static uint32_t new_node(struct fk_tree *t, uint32_t parent, uint32_t name)
{
	struct fk_fnode *nd;
	uint32_t id, old;

	if (t->nnodes == t->capnodes) {
		uint64_t *mb;
		if (t->capnodes > UINT32_MAX / 4)
			return 0;
		nd = fk_big_resize(t->nodes, (size_t)t->capnodes * sizeof *nd,
				   (size_t)t->capnodes * 2 * sizeof *nd);
		if (!nd)
			return 0;
		t->nodes = nd;
		mb = fk_resize(t->manybits, BITWORDS(t->capnodes),
			       BITWORDS((size_t)t->capnodes * 2), sizeof *mb);
		if (!mb)
			return 0;
		t->manybits = mb;
		t->capnodes *= 2;
	}
	if (name >= t->capuses) {
		uint32_t cap = t->capuses * 2 > name ? t->capuses * 2 : name + 1;
		uint32_t *u = fk_resize(t->uses, t->capuses, cap, sizeof *u);
		if (!u)
			return 0;
		t->uses = u;
		t->capuses = cap;
	}
	old = t->nodes[parent].child;
	if (old && !t->nodes[old].next) {
		if (t->nseveral == t->capseveral) {
			uint32_t *sv = fk_resize(t->several, (size_t)t->capseveral * 2,
						 (size_t)t->capseveral * 2, sizeof *sv);
			if (!sv)
				return 0;
			t->several = sv;
			t->capseveral *= 2;
		}
		t->several[t->nseveral++] = parent;
	}
	t->uses[name]++;
	id = t->nnodes++;
	nd = &t->nodes[id];
	nd->name = name;
	nd->parent = parent;
	nd->child = 0;
	/* Newest first while building: the head is the last one added, which
	 * is what a flame chart merges with. */
	nd->next = old;
	nd->self = nd->total = 0;
	t->nodes[parent].child = id;
	return id;
}

/* Puts child id of parent into the child table, growing it when half full.
 * Returns 0 or -1 when out of memory. */
static int ctab_put(struct fk_tree *t, uint32_t parent, uint32_t name, uint32_t id)
{
	uint64_t h = hash_pair(parent, name) & t->ctabmask;

	while (t->ctab[h].id)
		h = (h + 1) & t->ctabmask;
	t->ctab[h] = (struct fk_centry){ parent, name, id };
	if (++t->nctab * 2 > t->ctabmask &&
	    rehash((void **)&t->ctab, &t->ctabmask, sizeof *t->ctab, child_used, child_hash) < 0)
		return -1;
	return 0;
}

/* Returns the child of parent named name, adding it; 0 when out of memory. */
static uint32_t child(struct fk_tree *t, uint32_t parent, uint32_t name)
{
	uint64_t h;
	uint32_t id;

	/* The newest child first: it is the one a flame chart merges with,
	 * and often the one wanted on unsorted input too (a cached line,
	 * where the table probe is a cache miss). */
	id = t->nodes[parent].child;
	if (id && t->nodes[id].name == name)
		return id;
	if (t->flamechart)
		return new_node(t, parent, name);
	if (!many(t, parent)) {
		uint32_t c, k = id != 0;
		for (c = id ? t->nodes[id].next : 0; c; c = t->nodes[c].next, k++)
			if (t->nodes[c].name == name)
				return c;
		if (!(id = new_node(t, parent, name)))
			return 0;
		/* The parent just became wide: its children go into the table. */
		if (k + 1 == FEW_KIDS + 1) {
			t->manybits[parent >> 6] |= (uint64_t)1 << (parent & 63);
			for (c = id; c; c = t->nodes[c].next)
				if (ctab_put(t, parent, t->nodes[c].name, c) < 0)
					return 0;
		}
		return id;
	}
	h = hash_pair(parent, name) & t->ctabmask;
	while ((id = t->ctab[h].id) != 0) {
		if (t->ctab[h].parent == parent && t->ctab[h].name == name)
			return id;
		h = (h + 1) & t->ctabmask;
	}
	if (!(id = new_node(t, parent, name)) || ctab_put(t, parent, name, id) < 0)
		return 0;
	return id;
}

/* The names side's per-frame arrays, doubled. */
static int grow_scan(struct fk_tree *t)
{
	size_t cap = t->capscan * 2;
	size_t *e = fk_resize(t->fend, cap, cap, sizeof *e);
	uint64_t *hs;
	uint32_t *ids;

	if (!e)
		return -1;
	t->fend = e;
	hs = fk_resize(t->fhash, cap, cap, sizeof *hs);
	if (!hs)
		return -1;
	t->fhash = hs;
	ids = fk_resize(t->nid, cap, cap, sizeof *ids);
	if (!ids)
		return -1;
	t->nid = ids;
	t->capscan = cap;
	return 0;
}

/* Adds the extra columns' values t->xv to node leaf, giving it a row the
 * first time one of them is not 0. */
static int add_extra(struct fk_tree *t, uint32_t leaf, uint64_t lineno,
		     struct fk_err *err)
{
	size_t nx = t->ncols - 1, c;
	int64_t *row;

	for (c = 0; c < nx; c++)
		if (t->xv[c])
			break;
	if (c == nx)
		return 0;
	if (t->capxrow < t->capnodes) {
		size_t cap = t->capnodes;
		uint32_t *a = fk_resize(t->xrow, t->capxrow, cap, sizeof *a);
		if (!a)
			return oom(err);
		t->xrow = a;
		t->capxrow = cap;
	}
	if (!t->xrow[leaf]) {
		if (t->nxrows == t->capxrows) {
			size_t cap = fk_grow_cap(t->capxrows, t->nxrows + 1, nx * sizeof *t->xvals, 256);
			int64_t *a;

			if (!cap || !(a = fk_resize(t->xvals, cap * nx, cap * nx, sizeof *a)))
				return oom(err);
			t->xvals = a;
			t->capxrows = cap;
		}
		memset(t->xvals + t->nxrows * nx, 0, nx * sizeof *t->xvals);
		t->xrow[leaf] = (uint32_t)++t->nxrows;
	}
	row = t->xvals + (size_t)(t->xrow[leaf] - 1) * nx;
	for (c = 0; c < nx; c++) {
		/* Every value is >= 0 (add_value checked), so if the column's
		 * total fits, every sum does. */
		if (__builtin_add_overflow(t->xgrand[c], t->xv[c], &t->xgrand[c]))
			return fk_err_set(err, FK_ELIMIT, lineno,
					  "total exceeds %lld", (long long)INT64_MAX);
		row[c] += t->xv[c];
	}
	return 0;
}

static int add_value(struct fk_tree *t, uint32_t leaf, int64_t v, int base,
		     uint64_t lineno, struct fk_err *err)
{
	int64_t *grand = base ? &t->bgrand : &t->grand;
	uint32_t c;

	/* A bad extra value leaves the line out whole (--skip-bad). */
	for (c = 0; !base && t->ncols > 1 && t->xv && c + 1 < t->ncols; c++)
		if (t->xv[c] < 0)
			return fk_err_set(err, FK_ESYNTAX, lineno, "negative value '%lld'",
					  (long long)t->xv[c]);

	/* All values are >= 0, so if the grand total fits, every sum does. */
	if (__builtin_add_overflow(*grand, v, grand))
		return fk_err_set(err, FK_ELIMIT, lineno,
				  "total exceeds %lld", (long long)INT64_MAX);
	if (base) {
		if (t->capbase < t->capnodes) {
			size_t cap = t->capnodes, old = t->capbase;
			int64_t *a = fk_resize(t->bself, old, cap, sizeof *a);
			if (!a)
				return oom(err);
			t->bself = a;
			t->capbase = (uint32_t)cap;
		}
		t->has_base = 1;
		t->bself[leaf] += v;
	} else {
		t->nodes[leaf].self += v;
		if (t->ncols > 1 && t->xv && add_extra(t, leaf, lineno, err) < 0)
			return -1;
	}
	return 0;
}

int fk_tree_scan(struct fk_tree *t, const char *s, size_t n, int64_t v,
		 uint64_t lineno, size_t *firstp, size_t *endp, struct fk_err *err)
{
	size_t depth = 0, pos = 0, first, d;

	if (v < 0) {
		t->prev = NULL;
		return fk_err_set(err, FK_ESYNTAX, lineno, "negative value '%lld'",
				  (long long)v);
	}
	if (t->reverse) {
		/* Frames leaf first: walk the line backwards. */
		size_t stop = n;
		t->prev = NULL;
		for (;;) {
			size_t b = stop;
			uint32_t nm;
			while (b > 0 && s[b - 1] != ';')
				b--;
			if (depth >= FK_MAX_DEPTH_ANY)
				return fk_err_set(err, FK_ELIMIT, lineno,
						  "more than %d frames", FK_MAX_DEPTH_ANY);
			if (depth == t->capscan && grow_scan(t) < 0)
				return oom(err);
			nm = intern(t, s + b, stop - b, hash_bytes(s + b, stop - b));
			if (nm == UINT32_MAX)
				return oom(err);
			t->nid[depth++] = nm;
			if (b == 0)
				break;
			stop = b - 1;
		}
		*firstp = 0;
		*endp = depth;
		return 0;
	}
	if (t->prev) {
		size_t m = n < t->prevlen ? n : t->prevlen;
		size_t c = common_prefix(s, t->prev, m);
		while (depth < t->prevdepth && t->fend[depth] <= c &&
		       (t->fend[depth] == n || s[t->fend[depth]] == ';')) {
			pos = t->fend[depth] + 1;
			depth++;
		}
	}
	/* First find and hash the line's other frames, asking for their name
	 * table slots as each hash is known; then look them up. The slots are
	 * mostly cache misses, and this way they are waited for together, not
	 * one after another. */
	first = depth;
	for (d = depth; pos <= n; d++) {
		if (d >= FK_MAX_DEPTH_ANY) {
			t->prev = NULL;
			return fk_err_set(err, FK_ELIMIT, lineno,
					  "more than %d frames", FK_MAX_DEPTH_ANY);
		}
		if (d == t->capscan && grow_scan(t) < 0) {
			t->prev = NULL;
			return oom(err);
		}
		t->fend[d] = scan_frame(s, pos, n, &t->fhash[d]);
		__builtin_prefetch(&t->ntab[t->fhash[d] & t->ntabmask]);
		pos = t->fend[d] + 1;
	}
	/* By now the first slots have come: ask for the bytes of the names
	 * they hold, which the lookups compare. */
	for (depth = first; depth < d; depth++) {
		const struct fk_nentry *e = &t->ntab[t->fhash[depth] & t->ntabmask];
		if (e->hash == t->fhash[depth]) {
			__builtin_prefetch(e->s);
			if (e->len > 48)
				__builtin_prefetch(e->s + 64);
		}
	}
	pos = first ? t->fend[first - 1] + 1 : 0;
	for (depth = first; depth < d; depth++) {
		uint32_t nm = intern(t, s + pos, t->fend[depth] - pos, t->fhash[depth]);

		if (nm == UINT32_MAX) {
			t->prev = NULL;
			return oom(err);
		}
		t->nid[depth] = nm;
		pos = t->fend[depth] + 1;
	}
	t->prev = s;
	t->prevlen = n;
	t->prevdepth = d;
	*firstp = first;
	*endp = d;
	return 0;
}

/* The totals of the nodes of the last line placed from depth d on get
 * what was added below them, each passing it to its parent: a node's
 * total is summed once it leaves the path, not at every line (the lines
 * of bench/render.sh's input share 30 frames with the one before). */
static void close_path(struct fk_tree *t, size_t d)
{
	while (t->plen > d) {
		size_t k = --t->plen;
		t->nodes[t->path[k]].total += t->pacc[k];
		if (k)
			t->pacc[k - 1] += t->pacc[k];
		t->pacc[k] = 0;
	}
}

void fk_tree_close(struct fk_tree *t)
{
	close_path(t, 0);
}

/* Makes the path hold n frames; 0 or -1 when out of memory. */
static int grow_path(struct fk_tree *t, size_t n)
{
	while (n > t->cappath) {
		uint32_t *p = fk_resize(t->path, t->cappath * 2, t->cappath * 2, sizeof *p);
		int64_t *a;
		if (!p)
			return -1;
		t->path = p;
		if (!(a = fk_resize(t->pacc, t->cappath, t->cappath * 2, sizeof *a)))
			return -1;
		t->pacc = a;
		t->cappath *= 2;
	}
	return 0;
}

int fk_tree_place(struct fk_tree *t, size_t first, const uint32_t *ids, size_t k,
		  int64_t v, int base, uint64_t lineno, struct fk_err *err)
{
	uint32_t cur = first ? t->path[first - 1] : 0;
	size_t j;

	if (grow_path(t, first + k) < 0)
		return oom(err);
	/* The frames after the shared ones leave the path. */
	close_path(t, first);
	for (j = 0; j < k; j++) {
		if (!(cur = child(t, cur, ids[j])))
			return oom(err);
		t->path[first + j] = cur;
	}
	t->plen = first + k;
	if (add_value(t, cur, v, base, lineno, err) < 0)
		return -1;
	/* The new profile's totals: the root's now, the others' when their
	 * node leaves the path (close_path), not summed up the whole tree
	 * when finishing (a walk of every node on one thread). */
	if (!base && t->plen) {
		t->nodes[0].total += v;
		t->pacc[t->plen - 1] += v;
	}
	return 0;
}

int fk_tree_add_line(struct fk_tree *t, const char *s, size_t n, int64_t v,
		     int base, uint64_t lineno, struct fk_err *err)
{
	size_t first, end;

	if (fk_tree_scan(t, s, n, v, lineno, &first, &end, err) < 0)
		return -1;
	return fk_tree_place(t, first, t->nid + first, end - first, v, base, lineno, err);
}

int fk_tree_add_frames(struct fk_tree *t, const char *const *names,
		       const size_t *lens, size_t n, int64_t v, int base,
		       struct fk_err *err)
{
	uint32_t cur = 0;
	size_t i, same = 0;

	t->prev = NULL;
	if (v < 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "negative value '%lld'",
				  (long long)v);
	if (n == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty stack");
	if (n > FK_MAX_DEPTH_ANY)
		return fk_err_set(err, FK_ELIMIT, 0, "more than %d frames",
				  FK_MAX_DEPTH_ANY);
	/* The totals fk_tree_place still holds go in first (none after this
	 * function: it sums each total at once); the path stays, to be
	 * compared with. */
	same = t->plen;
	close_path(t, 0);
	t->plen = same;
	same = 0;
	/* A profile's stacks share most of their frames with the one before
	 * (a call tree's stacks, in the order the program made them): a frame
	 * whose bytes are those of the last stack's at its depth is that
	 * stack's node, found by one comparison, not a hash and two lookups. */
	for (; same < n && same < t->plen; same++) {
		size_t k = t->reverse ? n - 1 - same : same;
		const struct fk_fname *pn = &t->names[t->nodes[t->path[same]].name];
		if (pn->len != lens[k] || memcmp(pn->s, names[k], lens[k]) != 0)
			break;
	}
	cur = same ? t->path[same - 1] : 0;
	t->plen = same;
	if (grow_path(t, n) < 0)
		return oom(err);
	for (i = same; i < n; i++) {
		size_t k = t->reverse ? n - 1 - i : i;
		uint32_t nm;
		if (lens[k] > UINT32_MAX)
			return fk_err_set(err, FK_ELIMIT, 0, "frame name too long");
		nm = intern(t, names[k], lens[k], hash_bytes(names[k], lens[k]));
		if (nm == UINT32_MAX || !(cur = child(t, cur, nm)))
			return oom(err);
		t->path[i] = cur;
		t->plen = i + 1;
	}
	if (add_value(t, cur, v, base, 0, err) < 0)
		return -1;
	for (; !base && cur; cur = t->nodes[cur].parent)
		t->nodes[cur].total += v;
	if (!base)
		t->nodes[0].total += v;
	return 0;
}
