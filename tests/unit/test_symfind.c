/* SPDX-License-Identifier: MIT */
/* fk_symbolize_find_func: a function by name in each kind of symbol table
 * (the hook finds a static or prefixed jemalloc's mallctl this way). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize.h"
#include "t.h"

static int copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

int main(void)
{
	const char *names[] = { "no_such_function", "fk_alloc_medium", "fk_alloc_small" };
	const char *je[] = { "_rjem_mallctl", "mallctl" };
	struct fk_symfind f;
	struct fk_err err;
	char dir[] = "/tmp/fk-symfind-XXXXXX", path[256], dbg[256], fifo[256];
	int k;

	fk_err_init(&err, NULL);
	k = fk_symbolize_find_func("fixtures/sysroot/opt/fk/bin/fk-basic", names, 3, &f, &err);
	T_EQ_INT(k, 1, "fk-basic: the first name of the list that exists is found");
	T_EQ_STR(f.table, ".symtab", "fk-basic: from .symtab");
	k = fk_symbolize_find_func("fixtures/sysroot/opt/fk/bin/fk-basic", names + 2, 1, &f, &err);
	T_EQ_INT(k, 0, "fk-basic: fk_alloc_small found");
	T_EQ_INT(f.vaddr, 0x1280, "fk-basic: fk_alloc_small at its st_value (nm: 0x1280)");
	k = fk_symbolize_find_func("fixtures/sysroot/opt/fk/bin/fk-basic", names, 1, &f, &err);
	T_EQ_INT(k, -1, "fk-basic: an absent name is not found");

	k = fk_symbolize_find_func("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", je, 2, &f, &err);
	T_EQ_INT(k, 1, "libjemalloc.so.2: mallctl found, _rjem_mallctl not");
	T_OK(f.vaddr == 0x31730 || strcmp(f.table, ".dynsym") == 0 || strcmp(f.table, "debug file") == 0,
	     "libjemalloc.so.2: from .dynsym or its debug file (%s)", f.table);

	/* A stripped program: names only through the debug file beside it. */
	T_OK(mkdtemp(dir) != NULL, "scratch folder");
	snprintf(path, sizeof path, "%s/fk-stripped", dir);
	snprintf(dbg, sizeof dbg, "%s/fk-stripped.debug", dir);
	T_OK(copy("fixtures/sysroot/opt/fk/bin/fk-stripped", path) == 0 &&
	     copy("fixtures/debug/fk-stripped.debug", dbg) == 0, "copied fk-stripped and its debug file");
	k = fk_symbolize_find_func(path, names + 2, 1, &f, &err);
	T_EQ_INT(k, -1, "fk-stripped has no fk_alloc_small");
	{
		const char *mainname[] = { "main" };

		k = fk_symbolize_find_func(path, mainname, 1, &f, &err);
		T_EQ_INT(k, 0, "fk-stripped: main found through the debug file");
		T_EQ_STR(f.table, "debug file", "fk-stripped: from the debug file");
		T_EQ_STR(f.debug_file, dbg, "fk-stripped: the debug file's path");
		unlink(dbg);
		k = fk_symbolize_find_func(path, mainname, 1, &f, &err);
		T_EQ_INT(k, -1, "fk-stripped without its debug file: main not found");
	}

	/* Never blocks on a FIFO, and says why it cannot read. */
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	T_OK(mkfifo(fifo, 0600) == 0, "made a FIFO");
	fk_err_init(&err, NULL);
	k = fk_symbolize_find_func(fifo, names, 3, &f, &err);
	T_EQ_INT(k, -2, "a FIFO is refused");
	T_OK(strstr(err.msg, "not a regular file") != NULL, "and the reason says so: '%s'", err.msg);
	k = fk_symbolize_find_func("/nonexistent/file", names, 3, &f, &err);
	T_EQ_INT(k, -2, "a missing file is an error");
	T_OK(strstr(err.msg, "no such file") != NULL, "naming errno: '%s'", err.msg);
	unlink(fifo);
	unlink(path);
	rmdir(dir);
	printf("1..%d\n", t_n);
	return T_DONE();
}
