/* SPDX-License-Identifier: MIT */
/* Whole-file input and all-or-nothing output (see io.h). */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigmem.h"
#include "limits.h"

/* Reads a stream (a pipe, a terminal) into anonymous memory grown with
 * mremap, so growing never copies what was read, on transparent huge pages
 * where allowed. The mapping is trimmed to whole pages of the data, so
 * munmap(*data, *len) releases all of it. */
static int read_stream(int fd, int text, char **data, size_t *len, struct fk_err *err)
{
	size_t cap = (size_t)2 << 20, n = 0, page = (size_t)sysconf(_SC_PAGESIZE), keep;
	char *buf = fk_big_alloc(cap);

	if (!buf)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory reading input");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			/* Never more than the limit and one page: the byte past the
			 * limit is the refusal, whatever the stream still holds. */
			size_t ncap = cap > FK_MAX_INPUT / 2 ? FK_MAX_INPUT + page : cap * 2;
			void *nb;

			if (n > FK_MAX_INPUT) {
				munmap(buf, cap);
				return fk_err_set(err, FK_ELIMIT, 0,
						  "input larger than %zu bytes", FK_MAX_INPUT);
			}
			nb = fk_big_resize(buf, cap, ncap);
			if (!nb) {
				munmap(buf, cap);
				return fk_err_set(err, FK_ENOMEM, 0, "out of memory reading input");
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			munmap(buf, cap);
			return fk_err_set(err, FK_EIO, 0, "read error: %s", strerror(e));
		}
		/* Text that holds a NUL byte is refused by every text parser
		 * at that byte's line, and no format we read starts with one
		 * (gzip starts 1f 8b, a protobuf field number is never 0): what
		 * follows is never read. */
		if ((text && memchr(buf + n, '\0', (size_t)r)) || (n == 0 && buf[0] == '\0')) {
			n += (size_t)r;
			break;
		}
		n += (size_t)r;
	}
	keep = n ? (n + page - 1) / page * page : page;
	if (keep < cap)
		munmap(buf + keep, cap - keep);
	*data = buf;
	*len = n;
	return 0;
}

static int map_input(const char *path, int text, char **data, size_t *len,
		     int *mapped, struct fk_err *err)
{
	int is_stdin = !path || strcmp(path, "-") == 0, fd, rc;
	struct stat st;
	void *m;

	*mapped = 1;
	fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!is_stdin)
			close(fd);
		return fk_err_set(err, FK_EIO, 0, "is a directory");
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= FK_MAX_INPUT) {
		/* Populated at once: the file is about to be read front to back. */
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (m != MAP_FAILED) {
			if (!is_stdin)
				close(fd);
			*data = m;
			*len = (size_t)st.st_size;
			return 0;
		}
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > FK_MAX_INPUT) {
		if (!is_stdin)
			close(fd);
		return fk_err_set(err, FK_ELIMIT, 0, "input larger than %zu bytes", FK_MAX_INPUT);
	}
	rc = read_stream(fd, text, data, len, err);
	if (!is_stdin)
		close(fd);
	return rc;
}

int fk_map_input(const char *path, char **data, size_t *len, int *mapped,
		 struct fk_err *err)
{
	return map_input(path, 0, data, len, mapped, err);
}

int fk_map_text_input(const char *path, char **data, size_t *len, int *mapped,
		      struct fk_err *err)
{
	return map_input(path, 1, data, len, mapped, err);
}

void fk_release_input(char *data, size_t len, int mapped)
{
	/* A mapping of empty input still holds one page. */
	if (mapped)
		munmap(data, len ? len : 1);
	else
		free(data);
}

int fk_out_open(struct fk_out *out, const char *path, struct fk_err *err)
{
	int fd;

	memset(out, 0, sizeof *out);
	if (!path || strcmp(path, "-") == 0) {
		out->fp = stdout;
		return 0;
	}
	struct stat st;

	/* Refused before any work: renaming a finished file over a directory
	 * fails only at commit. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return fk_err_set(err, FK_EIO, 0, "cannot write output: is a directory");
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* Renaming over a device would replace it with a file. */
		out->path = strdup(path);
		if (!out->path)
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		out->fp = fopen(path, "w");
		if (!out->fp) {
			int e = errno;

			fk_out_abort(out);
			return fk_err_set(err, FK_EIO, 0, "cannot open output: %s", strerror(e));
		}
		out->direct = 1;
		return 0;
	}
	out->path = strdup(path);
	out->tmp = malloc(strlen(path) + 16);
	if (!out->path || !out->tmp) {
		fk_out_abort(out);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	sprintf(out->tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(out->tmp);
	if (fd < 0) {
		int e = errno;

		free(out->tmp);
		out->tmp = NULL;
		fk_out_abort(out);
		return fk_err_set(err, FK_EIO, 0, "cannot create output: %s", strerror(e));
	}
	fchmod(fd, 0644 & ~umask(umask(0)));
	out->fp = fdopen(fd, "w");
	if (!out->fp) {
		close(fd);
		fk_out_abort(out);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	return 0;
}

int fk_out_commit(struct fk_out *out, struct fk_err *err)
{
	int bad;

	if (!out->fp)
		return 0;
	bad = fflush(out->fp) != 0 || ferror(out->fp);
	if (out->tmp) {
		bad |= fclose(out->fp) != 0;
		out->fp = NULL;
		if (!bad && rename(out->tmp, out->path) != 0)
			bad = 1;
	} else {
		if (out->direct)
			bad |= fclose(out->fp) != 0;
		out->fp = NULL;
	}
	if (bad) {
		int e = errno;

		fk_out_abort(out);
		return fk_err_set(err, FK_EIO, 0, "write error: %s", strerror(e));
	}
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
	return 0;
}

void fk_out_abort(struct fk_out *out)
{
	if (out->fp && (out->tmp || out->direct))
		fclose(out->fp);
	out->fp = NULL;
	if (out->tmp)
		unlink(out->tmp);
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
}

int fk_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = 0;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
