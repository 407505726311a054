/* SPDX-License-Identifier: MIT */
/* Opening a file that input names (a dump's maps path, a build-id or
 * debuglink candidate): only a regular file, never waiting on a FIFO or
 * device, and under a sysroot only inside it, resolved component by
 * component the way a chroot would (path_resolution(7)): an absolute
 * symbolic link restarts at the root, and '..' never climbs above it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"
#include "symbolize_int.h"

static void lower_strerror(char *why, size_t n, int e)
{
	snprintf(why, n, "%s", strerror(e));
	if (why[0] >= 'A' && why[0] <= 'Z')
		why[0] = (char)(why[0] - 'A' + 'a');
}

int fk_rootpath_open_regular(const char *path, int nofollow, char *why, size_t n)
{
	/* A device's open may act (a tape rewinds, a terminal becomes the
	 * controlling one): look before opening. O_NONBLOCK: a FIFO put there
	 * since would otherwise wait for ever for a writer; it is cleared
	 * again for a regular file, and fstat decides. */
	struct stat st;
	if ((nofollow ? lstat(path, &st) : stat(path, &st)) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		return -4;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			    (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		lower_strerror(why, n, errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		close(fd);
		return -4;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		lower_strerror(why, n, errno);
		close(fd);
		return -1;
	}
	return fd;
}

/* Appends s[0..len) to the string *b of length *blen, capacity FK_MAX_PATH. */
static int put(char *b, size_t *blen, const char *s, size_t len)
{
	if (len >= FK_MAX_PATH - *blen)
		return -1;
	memcpy(b + *blen, s, len);
	*blen += len;
	b[*blen] = '\0';
	return 0;
}

/* Resolves path inside root into out (root + the physical path below it).
 * Returns 0, -1 with why (a missing component, too long, a loop), or -3
 * with why when the path leaves the root. */
static int resolve(const char *root, size_t rootlen, const char *path,
		   char *out, char *why, size_t n)
{
	char *pend = malloc(FK_MAX_PATH), *next = malloc(FK_MAX_PATH);
	char *link = malloc(FK_MAX_PATH);
	size_t olen = 0, plen = 0, pos = 0;
	int hops = 0, rc = -1;
	const char *via = NULL;        /* the last link followed, for the message */
	if (!pend || !next || !link) {
		rc = -2;
		goto out;
	}
	out[0] = '\0';
	if (put(out, &olen, root, rootlen) != 0 ||
	    put(pend, &plen, path, strlen(path)) != 0) {
		snprintf(why, n, "path longer than %d bytes", FK_MAX_PATH);
		goto out;
	}
	for (;;) {
		while (pos < plen && pend[pos] == '/')
			pos++;
		if (pos == plen)
			break;
		size_t end = pos;
		while (end < plen && pend[end] != '/')
			end++;
		const char *comp = pend + pos;
		size_t clen = end - pos;
		pos = end;
		if (clen == 1 && comp[0] == '.')
			continue;
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			if (olen == rootlen) {
				if (via)
					snprintf(why, n, "symbolic link '%.200s' leads out of "
						 "the sysroot", via);
				else
					snprintf(why, n, "'..' in the path climbs out of the "
						 "sysroot");
				rc = -3;
				goto out;
			}
			while (olen > rootlen && out[olen - 1] != '/')
				olen--;
			olen--;
			out[olen] = '\0';
			continue;
		}
		size_t keep = olen;
		if (put(out, &olen, "/", 1) != 0 || put(out, &olen, comp, clen) != 0) {
			snprintf(why, n, "path longer than %d bytes", FK_MAX_PATH);
			goto out;
		}
		struct stat st;
		if (lstat(out, &st) != 0) {
			lower_strerror(why, n, errno);
			goto out;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++hops > FK_MAX_SYMLINKS) {
			snprintf(why, n, "too many levels of symbolic links");
			goto out;
		}
		ssize_t ll = readlink(out, link, FK_MAX_PATH - 1);
		if (ll <= 0) {
			lower_strerror(why, n, ll < 0 ? errno : ENOENT);
			goto out;
		}
		/* The rest of the path now follows the link's text. */
		size_t nlen = 0;
		next[0] = '\0';
		if (put(next, &nlen, link, (size_t)ll) != 0 ||
		    put(next, &nlen, "/", 1) != 0 ||
		    put(next, &nlen, pend + pos, plen - pos) != 0) {
			snprintf(why, n, "path longer than %d bytes", FK_MAX_PATH);
			goto out;
		}
		memcpy(pend, next, nlen + 1);
		plen = nlen;
		pos = 0;
		/* An absolute link restarts at the root, a relative one at the
		 * link's folder; link keeps the link's own path for messages. */
		memcpy(link, out + rootlen, olen - rootlen + 1);
		via = link;
		olen = pend[0] == '/' ? rootlen : keep;
		out[olen] = '\0';
	}
	rc = 0;
out:
	free(pend);
	free(next);
	free(link);
	return rc;
}

/* Length of root without trailing slashes; 0 for none (or "/"). */
static size_t root_len(const char *root)
{
	if (!root || strspn(root, "/") == strlen(root))
		return 0;
	size_t len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	return len;
}

const char *fk_rootpath_below(const char *root, const char *full)
{
	size_t len = root_len(root);
	if (len == 0 || strncmp(full, root, len) != 0 || full[len] != '/')
		return NULL;
	return full + len;
}

int fk_rootpath_open(const char *root, const char *path, char **full,
		     char *why, size_t n)
{
	*full = NULL;
	size_t rootlen = root_len(root);
	if (rootlen == 0) {
		*full = strdup(path);
		if (!*full)
			return -2;
		return fk_rootpath_open_regular(path, 0, why, n);
	}
	char *out = malloc(FK_MAX_PATH);
	if (!out)
		return -2;
	int rc = resolve(root, rootlen, path, out, why, n);
	if (rc != 0) {
		free(out);
		return rc;
	}
	*full = out;
	/* The last component was seen not to be a link: never follow one
	 * put there since. */
	return fk_rootpath_open_regular(out, 1, why, n);
}
