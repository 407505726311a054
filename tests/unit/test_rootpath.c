/* SPDX-License-Identifier: MIT */
/* Unit tests of symbolize/rootpath.c: regular files only, never blocking,
 * and paths resolved inside a sysroot (issue 12, items 7 and 9). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize_int.h"
#include "t.h"

static char root[256];

static void mk(const char *rel, const char *link)
{
	char p[512];
	snprintf(p, sizeof p, "%s%s", root, rel);
	if (link) {
		if (symlink(link, p) != 0)
			perror(p);
	} else {
		FILE *f = fopen(p, "w");
		if (f) {
			fputs("x", f);
			fclose(f);
		}
	}
}

/* Opens rel under root; returns the status, the opened path below root in
 * below (or ""), the reason in why. */
static int try(const char *r, const char *rel, char *below, char *why)
{
	char *full = NULL;
	why[0] = '\0';
	int fd = fk_rootpath_open(r, rel, &full, why, 200);
	const char *b = full ? fk_rootpath_below(r, full) : NULL;
	snprintf(below, 200, "%s", b ? b : "");
	if (fd >= 0) {
		/* Blocking again: O_NONBLOCK was cleared. */
		if (fcntl(fd, F_GETFL) & O_NONBLOCK)
			fd = -100;
		else
			close(fd);
		fd = fd >= 0 ? 0 : fd;
	}
	free(full);
	return fd;
}

int main(void)
{
	char below[200], why[200], p[1024];
	snprintf(root, sizeof root, "/tmp/fk-rootpath.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(p, sizeof p, "%s/a", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/a/b", root);
	mkdir(p, 0755);
	mk("/a/b/file", NULL);
	mk("/a/up", "../../..");
	mk("/a/abs", "/a/b");
	mk("/a/lnk", "b/file");
	mk("/loop", "loop");
	snprintf(p, sizeof p, "%s/fifo", root);
	mkfifo(p, 0600);

	T_EQ_INT(try(root, "/a/b/file", below, why), 0, "a plain path opens");
	T_EQ_STR(below, "/a/b/file", "... at its own place");
	T_EQ_INT(try(root, "/a/b/../b/./file", below, why), 0, "'..' inside the root");
	T_EQ_STR(below, "/a/b/file", "... is normalised");
	T_EQ_INT(try(root, "/a/abs/file", below, why), 0,
		 "an absolute link restarts at the root");
	T_EQ_STR(below, "/a/b/file", "... and stays inside it");
	T_EQ_INT(try(root, "/a/lnk", below, why), 0, "a relative link as the last component");
	T_EQ_STR(below, "/a/b/file", "... resolves to its target");
	T_EQ_INT(try(root, "/../a/b/file", below, why), -3, "'..' above the root is refused");
	T_EQ_STR(why, "'..' in the path climbs out of the sysroot", "... saying why");
	T_EQ_INT(try(root, "/a/../../x", below, why), -3, "'..' climbing out later too");
	T_EQ_INT(try(root, "/a/up/etc/passwd", below, why), -3,
		 "a link leading above the root is refused");
	T_EQ_STR(why, "symbolic link '/a/up' leads out of the sysroot", "... naming the link");
	T_EQ_INT(try(root, "/loop", below, why), -1, "a link loop ends");
	T_EQ_STR(why, "too many levels of symbolic links", "... saying why");
	T_EQ_INT(try(root, "/fifo", below, why), -4, "a FIFO under the root is refused at once");
	T_EQ_STR(why, "not a regular file", "... saying why");
	T_EQ_INT(try(root, "/a", below, why), -4, "a folder is refused");
	T_EQ_INT(try(root, "/nothing", below, why), -1, "a missing file");
	T_EQ_STR(why, "no such file or directory", "... says so in lowercase");

	char slashed[300];
	snprintf(slashed, sizeof slashed, "%s///", root);
	T_EQ_INT(try(slashed, "/a/b/file", below, why), 0, "a root with trailing slashes");
	T_EQ_STR(below, "/a/b/file", "... gives the same path below it");

	/* Without a root: the path as is, still only a regular file. */
	snprintf(p, sizeof p, "%s/fifo", root);
	T_EQ_INT(try(NULL, p, below, why), -4, "a FIFO without a root is refused at once");
	snprintf(p, sizeof p, "%s/a/up/%s/a/b/file", root, root);
	T_EQ_INT(try(NULL, p, below, why), 0, "without a root links are followed as today");
	T_EQ_INT(try("/", "/../tmp", below, why), -4, "root '/' is no root");

	snprintf(p, sizeof p, "rm -rf '%s'", root);
	if (system(p) != 0)
		return 1;
	return T_DONE();
}
