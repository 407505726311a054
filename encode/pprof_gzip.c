/* SPDX-License-Identifier: MIT */
/* The pprof file: the packed message (pprof_enc.c) gzip'd with mtime 0,
 * whole (fk_pprof_encode, fk_pprof_write), or as a body compressed once
 * and stamped with its times for each copy (fk_pprof_encode_body,
 * fk_pprof_stamp). */
#include "pprof_enc.h"
#include "encode_int.h"

#include <stdlib.h>

/* Uncompressed size above which the default gzip level drops to 3. */
#define BIG_PLAIN ((size_t)4 << 20)

/* zlib's level 6 is a third of to-pprof's time on a 100k-stack dump;
 * past 4 MiB, level 3 (zlib's fast strategy) saves most of it for 1-5 %
 * of size (measured in bench/README.md). */
static int level_of(const struct fk_pprof_opts *o, size_t n)
{
	return o && o->level ? o->level : n > BIG_PLAIN ? 3 : 6;
}

int fk_pprof_encode(const struct fk_profile *p, const struct fk_pprof_opts *o,
		    unsigned char **out, size_t *outlen, struct fk_err *err)
{
	unsigned char *plain;
	size_t n;
	int rc;

	if (fk_enc_pprof_pack(p, o, &plain, &n, err) < 0)
		return -1;
	rc = fk_gz_compress(plain, n, level_of(o, n), out, outlen, err);
	free(plain);
	return rc;
}

struct fk_pprof_body {
	struct fk_gz_piece z;          /* the message less its times, compressed */
};

int fk_pprof_encode_body(const struct fk_profile *p, const struct fk_pprof_opts *o,
			 struct fk_pprof_body **out, struct fk_err *err)
{
	struct fk_pprof_opts untimed = o ? *o : (struct fk_pprof_opts){ 0 };
	struct fk_pprof_body *b;
	unsigned char *plain;
	size_t n;
	int rc;

	/* proto3 leaves zero scalars out of the message: the stamp adds them. */
	untimed.time_nanos = untimed.duration_nanos = 0;
	if (!(b = calloc(1, sizeof *b)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (fk_enc_pprof_pack(p, &untimed, &plain, &n, err) < 0) {
		free(b);
		return -1;
	}
	rc = fk_gz_piece(plain, n, level_of(o, n), 0, &b->z, err);
	free(plain);
	if (rc < 0) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

/* A varint field (wire type 0) at w; returns the end. */
static unsigned char *put_field(unsigned char *w, unsigned field, int64_t v)
{
	uint64_t u = (uint64_t)v;

	*w++ = (unsigned char)(field << 3);
	for (; u >= 0x80; u >>= 7)
		*w++ = (unsigned char)(u | 0x80);
	*w++ = (unsigned char)u;
	return w;
}

int fk_pprof_stamp(const struct fk_pprof_body *b, int64_t time_nanos,
		   int64_t duration_nanos, unsigned char **out, size_t *outlen,
		   struct fk_err *err)
{
	/* Profile.time_nanos (9) and duration_nanos (10) after every other
	 * field: a field's place in a message is free (protobuf encoding,
	 * "field order"). */
	unsigned char tail[2 * 11], *w = tail;
	struct fk_gz_piece pc[2];
	int rc;

	if (time_nanos)
		w = put_field(w, 9, time_nanos);
	if (duration_nanos)
		w = put_field(w, 10, duration_nanos);
	pc[0] = b->z;
	if (fk_gz_piece(tail, (size_t)(w - tail), b->z.level, 1, &pc[1], err) < 0)
		return -1;
	rc = fk_gz_join(pc, 2, out, outlen, err);
	free(pc[1].z);
	return rc;
}

size_t fk_pprof_body_size(const struct fk_pprof_body *b)
{
	return b ? sizeof *b + b->z.zlen : 0;
}

void fk_pprof_body_free(struct fk_pprof_body *b)
{
	if (b) {
		free(b->z.z);
		free(b);
	}
}

int fk_pprof_write(const struct fk_profile *p, const struct fk_pprof_opts *o,
		   FILE *out, struct fk_err *err)
{
	unsigned char *buf;
	size_t n;

	if (fk_pprof_encode(p, o, &buf, &n, err) < 0)
		return -1;
	if (fwrite(buf, 1, n, out) != n || fflush(out) != 0) {
		free(buf);
		return fk_err_set(err, FK_EIO, 0, "write error");
	}
	free(buf);
	return 0;
}
