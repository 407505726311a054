/* SPDX-License-Identifier: MIT */
/* Whole-buffer gzip (RFC 1952) with zlib: deterministic compression for
 * to-pprof, bounded decompression for from-pprof. */
#include "encode_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "grow.h"

/* zlib counts in uInt; feed it in pieces no larger than this. */
#define CHUNK ((size_t)1 << 30)

int fk_gz_is_gzip(const void *data, size_t len)
{
	const unsigned char *d = data;

	return len >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

int fk_gz_piece(const void *data, size_t len, int level, int last,
		struct fk_gz_piece *pc, struct fk_err *err)
{
	const unsigned char *in = data;
	size_t cap, inleft = len, done = 0;
	z_stream z;
	int rc = Z_OK, flush;

	memset(pc, 0, sizeof *pc);
	memset(&z, 0, sizeof z);
	/* windowBits -15: raw deflate, the member's header and trailer are
	 * fk_gz_join's. A piece back-references only its own data, so pieces
	 * compressed apart follow one another in one stream. */
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return fk_err_set(err, FK_ENOMEM, 0, "cannot start zlib compression");
	cap = deflateBound(&z, (uLong)len) + 64;
	if (!(pc->z = malloc(cap))) {
		deflateEnd(&z);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory compressing %zu bytes", len);
	}
	for (;;) {
		size_t in_now = inleft > CHUNK ? CHUNK : inleft, room = cap - done;

		/* The end of a piece that is not the last: a sync flush leaves
		 * the stream on a byte boundary, no block marked final. */
		flush = in_now < inleft ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)in_now;
		z.next_out = pc->z + done;
		z.avail_out = room > CHUNK ? (uInt)CHUNK : (uInt)room;
		rc = deflate(&z, flush);
		in += in_now - z.avail_in;
		inleft -= in_now - z.avail_in;
		done = (size_t)(z.next_out - pc->z);
		if (rc == Z_STREAM_END || (rc == Z_OK && flush == Z_SYNC_FLUSH && z.avail_out > 0))
			break;
		if (rc != Z_OK && !(rc == Z_BUF_ERROR && done < cap))
			break;
	}
	deflateEnd(&z);
	if (rc != Z_STREAM_END && !(rc == Z_OK && !last)) {
		free(pc->z);
		pc->z = NULL;
		return fk_err_set(err, FK_EIO, 0, "zlib compression failed");
	}
	pc->zlen = done;
	pc->len = len;
	pc->level = level;
	pc->crc = 0;
	for (in = data, inleft = len; inleft > 0;) {
		size_t now = inleft > CHUNK ? CHUNK : inleft;

		pc->crc = (uint32_t)crc32(pc->crc, in, (uInt)now);
		in += now;
		inleft -= now;
	}
	return 0;
}

int fk_gz_join(const struct fk_gz_piece *pc, size_t n, unsigned char **out,
	       size_t *outlen, struct fk_err *err)
{
	/* RFC 1952: deflate, no flags, mtime 0 (equal input, equal bytes),
	 * OS 3 (Unix); the extra flags as zlib sets them for the first
	 * piece's level: 2 for the slowest, 4 for the fastest. */
	unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	size_t total = sizeof head + 8, len = 0;
	uint32_t crc = 0;
	unsigned char *buf, *w;

	if (n)
		head[8] = pc[0].level == 9 ? 2 : pc[0].level < 2 ? 4 : 0;
	for (size_t i = 0; i < n; i++)
		total += pc[i].zlen;
	if (!(buf = malloc(total)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	memcpy(buf, head, sizeof head);
	w = buf + sizeof head;
	for (size_t i = 0; i < n; i++) {
		memcpy(w, pc[i].z, pc[i].zlen);
		w += pc[i].zlen;
		crc = i ? (uint32_t)crc32_combine(crc, pc[i].crc, (z_off_t)pc[i].len) : pc[i].crc;
		len += pc[i].len;
	}
	for (int k = 0; k < 4; k++)
		*w++ = (unsigned char)(crc >> 8 * k);
	for (int k = 0; k < 4; k++)
		*w++ = (unsigned char)(len >> 8 * k);   /* ISIZE: the length mod 2^32 */
	*out = buf;
	*outlen = total;
	return 0;
}

int fk_gz_compress(const void *data, size_t len, int level,
		   unsigned char **out, size_t *outlen, struct fk_err *err)
{
	struct fk_gz_piece pc;
	int rc;

	/* One piece, the last: a member as zlib's own gzip wrapper writes it. */
	if (fk_gz_piece(data, len, level, 1, &pc, err) < 0)
		return -1;
	rc = fk_gz_join(&pc, 1, out, outlen, err);
	free(pc.z);
	return rc;
}

int fk_gz_decompress(const void *data, size_t len, size_t max,
		     unsigned char **out, size_t *outlen, struct fk_err *err)
{
	z_stream z;
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	const unsigned char *in = data;
	size_t inleft = len;
	int rc = Z_OK;

	memset(&z, 0, sizeof z);
	/* 15 + 32: accept gzip or zlib headers. */
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return fk_err_set(err, FK_ENOMEM, 0, "cannot start zlib decompression");
	while (inleft > 0) {
		/* Concatenated gzip members form one stream (RFC 1952, 2.2). */
		if (rc == Z_STREAM_END) {
			if (inleft < 2 || in[0] != 0x1f || in[1] != 0x8b)
				break;     /* trailing garbage after the last member */
			inflateReset(&z);
		}
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = inleft > CHUNK ? (uInt)CHUNK : (uInt)inleft;
		do {
			size_t room;

			if (n == cap) {
				size_t ncap = cap ? cap * 2 : (len < 4096 ? 16384 : len * 4);
				unsigned char *nb;

				if (ncap > max + 1)
					ncap = max + 1;
				if (ncap <= n) {
					free(buf);
					inflateEnd(&z);
					return fk_err_set(err, FK_ELIMIT, 0,
						"gzip data inflates to more than %zu bytes", max);
				}
				nb = fk_resize(buf, ncap, ncap, 1);
				if (!nb) {
					free(buf);
					inflateEnd(&z);
					return fk_err_set(err, FK_ENOMEM, 0, "out of memory decompressing");
				}
				buf = nb;
				cap = ncap;
			}
			room = cap - n;
			z.next_out = buf + n;
			z.avail_out = room > CHUNK ? (uInt)CHUNK : (uInt)room;
			rc = inflate(&z, Z_NO_FLUSH);
			n = (size_t)(z.next_out - buf);
			if (n > max) {
				free(buf);
				inflateEnd(&z);
				return fk_err_set(err, FK_ELIMIT, 0,
					"gzip data inflates to more than %zu bytes", max);
			}
		} while (rc == Z_OK && (z.avail_out == 0 || z.avail_in > 0));
		{
			size_t used = (size_t)(z.next_in - in);
			in += used;
			inleft -= used;
		}
		if (rc == Z_BUF_ERROR) {
			/* No progress possible: out of input (truncated) or a
			 * chunk boundary; the loop condition decides. */
			if (inleft == 0)
				break;
			rc = Z_OK;
			continue;
		}
		if (rc != Z_OK && rc != Z_STREAM_END) {
			free(buf);
			inflateEnd(&z);
			return fk_err_set(err, FK_ESYNTAX, 0, "corrupt gzip data (%s)",
					  z.msg ? z.msg : "zlib error");
		}
	}
	inflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return fk_err_set(err, FK_ESYNTAX, 0, "truncated gzip data");
	}
	*out = buf ? buf : malloc(1);
	if (!*out)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	*outlen = n;
	return 0;
}
