/* SPDX-License-Identifier: MIT */
/* Whole-file input and safe output for tools and the hook. */
#ifndef FK_IO_H
#define FK_IO_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* Reads all of path ("-" or NULL = stdin), at most FK_MAX_INPUT bytes: a
 * regular file is mapped read-only, a stream is read into memory that
 * grows without copying, never to more than the limit and a page (the
 * byte past the limit is the refusal; one that starts with a NUL byte is
 * read no further than its first read); no NUL follows the data. *mapped says how to
 * release it (fk_release_input). The one input reader of the tools: every
 * parser takes its input as (ptr, len). 0, or -1 with err (errno text). */
int fk_map_input(const char *path, char **data, size_t *len, int *mapped,
		 struct fk_err *err);

/* The same for a text format that no NUL byte may appear in (profiles,
 * folded stacks): a stream is read only to the end of the read that brings
 * its first NUL byte, so `/dev/zero` is refused after one read, not at the
 * size limit; its parser then finds the NUL, at the same line. */
int fk_map_text_input(const char *path, char **data, size_t *len, int *mapped,
		      struct fk_err *err);

/* Releases what fk_map_input returned. */
void fk_release_input(char *data, size_t len, int mapped);

/* Output that appears whole or not at all: writes to stdout, or to a
 * temporary file beside path that is renamed over path on commit. */
struct fk_out {
	FILE *fp;
	char *path;                    /* NULL for stdout; freed by commit and abort */
	char *tmp;
	int direct;                    /* a device or FIFO, written in place */
};

/* Opens out for path (NULL or "-" = stdout): a regular file is written
 * beside and renamed over at commit; a device or FIFO (/dev/null) is
 * written in place, never replaced. Returns 0 or -1 with err. */
int fk_out_open(struct fk_out *out, const char *path, struct fk_err *err);

/* Flushes and checks for write errors, then renames the temporary file into
 * place. Returns 0 or -1 with err. */
int fk_out_commit(struct fk_out *out, struct fk_err *err);

/* Discards a temporary file (after a failure). Safe after commit. */
void fk_out_abort(struct fk_out *out);

/* Writes p[0..n) to the descriptor fd whole, again after EINTR and short
 * writes. 0, or -1 with errno set (0 when a write wrote nothing). */
int fk_write_all(int fd, const char *p, size_t n);

#endif
