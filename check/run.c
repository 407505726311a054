/* SPDX-License-Identifier: MIT */
/* One run of heap-check: the budget file, the profile and its base read,
 * every check asked for made, the report written. */
#include <string.h>

#include "heapcheck.h"

static const char *name(const char *path)
{
	return path && strcmp(path, "-") ? path : "stdin";
}

int fk_check_run(const struct fk_check_args *a, FILE *out, struct fk_err *err)
{
	struct fk_sites s, base;
	struct fk_budget b;
	struct fk_verdict vd;
	const char *outname = err->path;
	int rc = -1, has_b = 0, has_base = 0;

	memset(&s, 0, sizeof s);
	memset(&vd, 0, sizeof vd);
	fk_err_init(err, name(a->budget));
	if (a->budget && fk_budget_load(&b, a->budget, err) < 0)
		return -1;
	has_b = a->budget != NULL;
	fk_err_init(err, name(a->path));
	if (fk_sites_load(&s, a->path, a->warn, (void *)name(a->path), err) < 0)
		goto done;
	fk_verdict_init(&vd, &s);
	if ((a->inuse >= 0 && fk_verdict_total(&vd, &s, FK_CHECK_INUSE, a->inuse, err) < 0) ||
	    (a->alloc >= 0 && fk_verdict_total(&vd, &s, FK_CHECK_ALLOC, a->alloc, err) < 0))
		goto done;
	if (has_b) {
		vd.budget_source = name(a->budget);
		if (fk_verdict_budget(&vd, &s, &b, err) < 0)
			goto done;
	}
	if (a->base) {
		fk_err_init(err, name(a->base));
		has_base = 1;
		if (fk_sites_load(&base, a->base, a->warn, (void *)name(a->base), err) < 0 ||
		    fk_verdict_growth(&vd, &s, &base, a->growth, a->pct, err) < 0)
			goto done;
	}
	fk_err_init(err, outname);
	if (fk_report_write(&vd, a->format, out, err) == 0)
		rc = vd.nover > 0;
done:
	fk_verdict_release(&vd);
	if (has_base)
		fk_sites_release(&base);
	fk_sites_release(&s);
	if (has_b)
		fk_budget_release(&b);
	return rc;
}
