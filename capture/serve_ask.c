/* SPDX-License-Identifier: MIT */
/* Requests to the program's workers (libflamekit-hook(3), PROCESSES), made
 * by the listener's serving half: an HTTP request on a worker's private
 * socket, to the name it registered and only when the socket's owner is
 * that worker (SO_PEERCRED). pid=all asks every worker at once, within
 * one deadline, and keeps small answers; a proxied answer's body is
 * streamed. What a worker answers is read as untrusted bytes
 * (hook_answer.c). Blocking: called from off-loop work. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "grow.h"
#include "serve_int.h"

static int send_all(int fd, const char *p, size_t n, double deadline)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			double left = deadline - fk_now();

			if (left <= 0)
				return -1;
			poll(&pf, 1, (int)(left * 1000) + 1);
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Milliseconds to wait in poll until deadline, at least 1 (0: past). */
static int ms_until(double deadline)
{
	double left = deadline - fk_now();

	return left <= 0 ? 0 : left > 3600 ? 3600000 : (int)(left * 1000) + 1;
}

/* Connects to worker m's socket, checks that it is m's, and sends METHOD
 * TARGET (by deadline; 0: at once or not at all). The fd (non-blocking),
 * or -1 with err. */
static int open_worker(const struct fk_member *m, const char *method, const char *target,
		       double deadline, struct fk_err *err)
{
	const char *tok = fk_env_get()->guard.token;
	char head[FK_HOOK_MAX_URL + 512];
	struct ucred c;
	int fd, k;

	fd = fk_group_connect(m->name, &c);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "process %ld does not answer on its socket%s",
				  (long)m->pid, errno == EAGAIN ? " (its queue is full)" : "");
	if (c.pid != m->pid) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "the socket of process %ld belongs to process %ld",
				  (long)m->pid, (long)c.pid);
	}
	k = snprintf(head, sizeof head, "%s %s HTTP/1.0\r\nHost: localhost\r\nX-Flamekit: 1\r\n"
		     "%s%s%sConnection: close\r\n\r\n", method, target,
		     tok[0] ? "Authorization: Bearer " : "", tok, tok[0] ? "\r\n" : "");
	if (k < 0 || (size_t)k >= sizeof head || send_all(fd, head, (size_t)k, deadline) < 0) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "cannot send the request to process %ld",
				  (long)m->pid);
	}
	return fd;
}

/* An answer being read for fk_group_ask. */
struct inflight {
	size_t i;                  /* its ask */
	int fd;
	char *buf;
	size_t n, cap;
};

/* Reads what there is of f's answer, at most a head and max bytes of
 * body. 0: more to come; 1: done, the answer (or why there is none) in a. */
static int read_some(struct inflight *f, struct fk_ask *a, size_t max)
{
	size_t limit = FK_ANSWER_MAX_HEAD + max + 1;
	struct fk_answer_head h;
	const char *why;
	ssize_t got;
	int rc;

	if (f->cap - f->n < 2) {
		size_t ncap = fk_grow_cap(f->cap, f->n + 4096, 1, 4096);
		char *nb;

		if (ncap > limit)
			ncap = limit;
		if (ncap <= f->cap + 1) {
			snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than "
				 "%zu KiB", (long)a->m.pid, max >> 10);
			return 1;
		}
		if (!(nb = fk_resize(f->buf, ncap, ncap, 1))) {
			snprintf(a->err, sizeof a->err, "out of memory");
			return 1;
		}
		f->buf = nb;
		f->cap = ncap;
	}
	/* One byte stays free for the NUL after the body. */
	got = recv(f->fd, f->buf + f->n, f->cap - f->n - 1, MSG_DONTWAIT);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got < 0) {
		snprintf(a->err, sizeof a->err, "reading from process %ld: %s", (long)a->m.pid,
			 strerror(errno));
		return 1;
	}
	f->n += (size_t)got;
	rc = fk_answer_head(f->buf, f->n, &h, &why);
	if (rc < 0 || (rc == 0 && got == 0)) {
		snprintf(a->err, sizeof a->err, "process %ld: %s", (long)a->m.pid,
			 rc < 0 ? why : "its answer ended before its head did");
		return 1;
	}
	if (rc > 0 && h.length != FK_ANSWER_NO_LENGTH && h.length > max) {
		snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than %zu KiB",
			 (long)a->m.pid, max >> 10);
		return 1;
	}
	if (got > 0 && !(rc > 0 && h.length != FK_ANSWER_NO_LENGTH &&
			 f->n - h.head_len >= h.length))
		return 0;
	/* The whole answer: its body, NUL-terminated, moved to the front. */
	a->len = f->n - h.head_len;
	if (a->len > max) {
		snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than %zu KiB",
			 (long)a->m.pid, max >> 10);
		a->len = 0;
		return 1;
	}
	if (h.length != FK_ANSWER_NO_LENGTH && a->len != h.length) {
		snprintf(a->err, sizeof a->err, "process %ld: its answer is not its Content-Length "
			 "long", (long)a->m.pid);
		a->len = 0;
		return 1;
	}
	memmove(f->buf, f->buf + h.head_len, a->len);
	f->buf[a->len] = '\0';
	a->body = f->buf;
	a->status = h.status;
	f->buf = NULL;
	return 1;
}

static void inflight_end(struct inflight *f)
{
	close(f->fd);
	free(f->buf);
}

void fk_group_ask(struct fk_ask *asks, size_t n, const char *method, const char *target,
		  double seconds, size_t max)
{
	struct inflight fl[FK_HOOK_ASK_PARALLEL];
	struct pollfd pf[FK_HOOK_ASK_PARALLEL];
	double deadline = fk_now() + seconds;
	size_t next = 0, nfl = 0;

	for (size_t i = 0; i < n; i++) {
		asks[i].status = 0;
		asks[i].body = NULL;
		asks[i].len = 0;
		asks[i].err[0] = '\0';
	}
	for (;;) {
		while (next < n && nfl < FK_HOOK_ASK_PARALLEL && fk_now() < deadline) {
			struct fk_err err;
			int fd;

			fk_err_init(&err, NULL);
			fd = open_worker(&asks[next].m, method, target, 0, &err);
			if (fd < 0) {
				snprintf(asks[next].err, sizeof asks[next].err, "%s", err.msg);
			} else {
				memset(&fl[nfl], 0, sizeof fl[nfl]);
				fl[nfl].i = next;
				fl[nfl++].fd = fd;
			}
			next++;
		}
		if (nfl == 0 || fk_now() >= deadline)
			break;
		for (size_t k = 0; k < nfl; k++) {
			pf[k].fd = fl[k].fd;
			pf[k].events = POLLIN;
			pf[k].revents = 0;
		}
		if (poll(pf, (nfds_t)nfl, ms_until(deadline)) <= 0)
			continue;
		for (size_t k = 0; k < nfl;) {
			if (pf[k].revents && read_some(&fl[k], &asks[fl[k].i], max)) {
				inflight_end(&fl[k]);
				fl[k] = fl[--nfl];
				pf[k] = pf[nfl];
				continue;
			}
			k++;
		}
	}
	for (size_t k = 0; k < nfl; k++) {
		snprintf(asks[fl[k].i].err, sizeof asks[fl[k].i].err,
			 "process %ld did not answer within %g s", (long)asks[fl[k].i].m.pid, seconds);
		inflight_end(&fl[k]);
	}
	for (; next < n; next++)
		snprintf(asks[next].err, sizeof asks[next].err, "not asked: the %g s for every "
			 "process's answer went to those asked before it", seconds);
}

/* ---- a worker's answer streamed ---- */

/* The body of a worker's answer, read on the loop as the client takes it:
 * first what came with the head, then the socket's bytes. */
struct wstream {
	int fd;
	int known;                 /* the answer said its length */
	uint64_t left;             /* then: bytes still to take from fd */
	uint64_t sent;             /* bytes given so far */
	size_t npre, off;
	char pre[FK_ANSWER_MAX_HEAD];
};

static ssize_t wstream_read(void *cls, char *buf, size_t max)
{
	struct wstream *s = cls;
	ssize_t got;

	if (s->off < s->npre) {
		size_t k = s->npre - s->off < max ? s->npre - s->off : max;

		memcpy(buf, s->pre + s->off, k);
		s->off += k;
		s->sent += k;
		return (ssize_t)k;
	}
	if (s->known && s->left == 0)
		return -1;
	if (s->known && max > s->left)
		max = (size_t)s->left;
	if (s->sent + max > FK_HOOK_MAX_PROXY)
		max = (size_t)(FK_HOOK_MAX_PROXY - s->sent);
	if (max == 0)
		return -2;             /* past FK_HOOK_MAX_PROXY */
	got = recv(s->fd, buf, max, MSG_DONTWAIT);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -2;
	if (got == 0)
		return s->known ? -2 : -1;   /* known: it ended short */
	s->sent += (uint64_t)got;
	if (s->known)
		s->left -= (uint64_t)got;
	return got;
}

static void wstream_free(void *cls)
{
	struct wstream *s = cls;

	close(s->fd);
	free(s);
}

int fk_group_open(const struct fk_member *m, const char *method, const char *target,
		  double seconds, struct fk_answer_head *h, struct fk_body_src *src,
		  struct fk_err *err)
{
	double deadline = fk_now() + seconds;
	struct wstream *s = calloc(1, sizeof *s);
	size_t n = 0;
	const char *why;
	int rc = 0;

	if (!s)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	s->fd = open_worker(m, method, target, deadline, err);
	if (s->fd < 0) {
		free(s);
		return -1;
	}
	/* The head, into pre: what follows it there is the body's start. */
	while (rc == 0) {
		struct pollfd pf = { .fd = s->fd, .events = POLLIN };
		ssize_t got;

		if (fk_now() >= deadline) {
			fk_err_set(err, FK_EIO, 0, "process %ld did not answer within %g s",
				   (long)m->pid, seconds);
			goto fail;
		}
		if (poll(&pf, 1, ms_until(deadline)) <= 0)
			continue;
		got = recv(s->fd, s->pre + n, sizeof s->pre - n, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got < 0) {
			fk_err_set(err, FK_EIO, 0, "reading from process %ld: %s", (long)m->pid,
				   strerror(errno));
			goto fail;
		}
		n += (size_t)got;
		rc = fk_answer_head(s->pre, n, h, &why);
		if (rc < 0 || (rc == 0 && got == 0)) {
			fk_err_set(err, FK_EIO, 0, "process %ld: %s", (long)m->pid,
				   rc < 0 ? why : "its answer ended before its head did");
			goto fail;
		}
	}
	if (h->length != FK_ANSWER_NO_LENGTH && h->length > FK_HOOK_MAX_PROXY) {
		fk_err_set(err, FK_ELIMIT, 0, "the answer of process %ld is larger than %llu MiB",
			   (long)m->pid, FK_HOOK_MAX_PROXY >> 20);
		goto fail;
	}
	s->npre = n - h->head_len;
	memmove(s->pre, s->pre + h->head_len, s->npre);
	s->known = h->length != FK_ANSWER_NO_LENGTH;
	if (s->known && s->npre > h->length)
		s->npre = (size_t)h->length;
	s->left = s->known ? h->length - s->npre : 0;
	memset(src, 0, sizeof *src);
	src->read = wstream_read;
	src->free = wstream_free;
	src->cls = s;
	src->fd = s->fd;
	src->size = h->length;
	return 0;
fail:
	close(s->fd);
	free(s);
	return -1;
}
