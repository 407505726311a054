/* Heap profile -> folded stacks (flamegraph.pl's input format). The values
 * and names are those to-pprof writes, so `to-pprof | from-pprof` gives the
 * same lines. */
#include "folded_enc.h"
#include "encode_int.h"

#include <inttypes.h>
#include <string.h>

static int64_t pick(const struct fk_profile *p, const struct fk_folded_opts *o,
		    const struct fk_counts *c, struct fk_enc_rounder *r)
{
	struct fk_values v = fk_unbias(p, c);
	double x;

	if (o->alloc)
		x = o->value == FK_FOLDED_OBJECTS ? v.acc_objs : v.acc_bytes;
	else
		x = o->value == FK_FOLDED_OBJECTS ? v.objs : v.bytes;
	return fk_enc_round_next(r, x);
}

/* Appends the frames of stack s, root first, to the current line. */
static int add_frames(const struct fk_profile *p, struct fk_foldacc *acc,
		      const struct fk_stack *s, struct fk_err *err)
{
	uint32_t i, j;
	char buf[64];

	for (i = s->depth; i-- > 0;) {
		const struct fk_sym *sym = p->symbolized ? fk_profile_sym(p, fk_stack_key(s, i)) : NULL;
		int named = 0;

		/* frames[0] is innermost: write the outermost caller first. A
		 * frame without a name falls back as in from-pprof: system
		 * name, else the address. */
		for (j = sym ? sym->nframes : 0; j-- > 0;) {
			const struct fk_frame *f = &sym->frames[j];
			const char *name = f->name && *f->name ? f->name :
					   f->sysname && *f->sysname ? f->sysname : NULL;

			if (!name)
				continue;
			if (fk_foldacc_frame(acc, name, err) < 0)
				return -1;
			named = 1;
		}
		if (!named && fk_foldacc_frame(acc, fk_enc_profile_addr_name(buf, sizeof buf, p,
								s->addrs[i]), err) < 0)
			return -1;
	}
	return 0;
}

static int add_thread(const struct fk_profile *p, struct fk_foldacc *acc,
		      const struct fk_stack *s, const struct fk_tcounts *t,
		      const struct fk_folded_opts *o, struct fk_enc_rounder *r,
		      struct fk_err *err)
{
	const struct fk_thread *th = &p->threads[t->thread];
	int64_t v = pick(p, o, &t->c, r);
	char root[128];

	if (v == 0)
		return 0;
	if (th->name && *th->name)
		snprintf(root, sizeof root, "[thread %" PRIu64 " %.100s]", th->id, th->name);
	else
		snprintf(root, sizeof root, "[thread %" PRIu64 "]", th->id);
	fk_foldacc_begin(acc);
	if (fk_foldacc_frame(acc, root, err) < 0 || add_frames(p, acc, s, err) < 0)
		return -1;
	return fk_foldacc_end(acc, v, err);
}

int fk_folded_write(const struct fk_profile *p, const struct fk_folded_opts *o,
		    FILE *out, struct fk_err *err)
{
	static const struct fk_folded_opts defaults;
	struct fk_foldacc *acc;
	struct fk_enc_rounders rs;
	size_t i;
	int rc = 0;

	if (!o)
		o = &defaults;
	if (o->alloc && !p->has_accum)
		return fk_err_set(err, FK_EUNSUPP, 0,
				  "profile has no accumulated counts (run with MALLOC_CONF=prof_accum:true)");
	acc = fk_foldacc_new();
	if (!acc)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_enc_rounders_init(&rs, 1);
	for (i = 0; i < p->nstacks && rc == 0; i++) {
		const struct fk_stack *s = &p->stacks[i];
		struct fk_enc_rounder *r = fk_enc_rounders_of(&rs, p, s);
		int64_t v;
		uint32_t j;

		if (!r) {
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			break;
		}
		if (o->threads && s->nthr) {
			for (j = 0; j < s->nthr && rc == 0; j++)
				rc = add_thread(p, acc, s, &s->thr[j], o, r, err);
			continue;
		}
		v = pick(p, o, &s->c, r);
		if (v == 0)
			continue;
		fk_foldacc_begin(acc);
		rc = add_frames(p, acc, s, err);
		if (rc == 0)
			rc = fk_foldacc_end(acc, v, err);
	}
	if (rc == 0)
		rc = fk_foldacc_write(acc, out, err);
	fk_foldacc_free(acc);
	fk_enc_rounders_release(&rs);
	return rc;
}
