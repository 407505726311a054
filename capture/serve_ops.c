/* SPDX-License-Identifier: MIT */
/* The serving half's one export: the table the resident half calls it
 * through (hook_private.h, "the serving half"; hook_serve.c loads it). */
#include "serve_int.h"
#include "symbolize.h"

/* A forked child forgets what the parent's hook thread held. */
static void atfork_child(void)
{
	fk_http_atfork_child();
	fk_serve_atfork_child();
	fk_snap_atfork_child();
	fk_routes_atfork_child();
}

/* fk_symbolize_find_func in the table's terms. */
static int find_func(const char *path, const char *const *names, size_t n,
		     uint64_t *vaddr, const char **table, struct fk_err *err)
{
	struct fk_symfind f;
	int which = fk_symbolize_find_func(path, names, n, &f, err);

	*vaddr = f.vaddr;
	*table = f.table;
	return which;
}

__attribute__((visibility("default"))) const struct fk_serve_ops fk_serve_ops_0 = {
	.version = FK_VERSION,
	.handler = fk_routes_handle,
	.http_new = fk_http_new,
	.http_poll_fd = fk_http_poll_fd,
	.http_run = fk_http_run,
	.http_timeout = fk_http_timeout,
	.http_work_fd = fk_http_work_fd,
	.http_broken = fk_http_broken,
	.http_quit = fk_http_quit,
	.http_free = fk_http_free,
	.snap_timeout_ms = fk_snap_timeout_ms,
	.snap_tick = fk_snap_tick,
	.snap_release = fk_snap_release,
	.cache_drop = fk_serve_cache_drop,
	.atfork_child = atfork_child,
	.fmt_parse = fk_fmt_parse,
	.produce = fk_serve_produce,
	.find_func = find_func,
	.handle = fk_serve_handle,
	.handle_finish = fk_serve_handle_finish,
};
