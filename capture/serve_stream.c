/* SPDX-License-Identifier: MIT */
/* A body the transport sends as it reads it (struct fk_body_src: a
 * worker's answer proxied), never held whole: a libmicrohttpd callback
 * response whose connection is suspended while its source has nothing
 * (MHD_suspend_connection from the content reader, as microhttpd.h
 * allows) and resumed when the source's socket is readable or its wait is
 * over. The sockets of waiting sources are in one epoll set with the
 * transport's wake pipe, and the loop polls that set as the transport's
 * work fd. Everything here runs on the loop. */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "serve_int.h"

struct stream {
	struct MHD_Connection *c;
	struct fk_body_src src;
	int waiting;               /* suspended, its fd in the set */
	int cut;                   /* its wait is over, or the server stops */
	double until;              /* while waiting: when the wait is over */
	struct stream *prev, *next;  /* in the waiting list */
};

static struct {
	int ep;                    /* the set: the wake pipe, waiting fds */
	struct stream *waiting;    /* the waiting list */
} sr = { .ep = -1 };

int fk_stream_init(int wake_fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (sr.ep >= 0 || wake_fd < 0)
		return sr.ep;
	sr.ep = epoll_create1(EPOLL_CLOEXEC);
	if (sr.ep >= 0 && epoll_ctl(sr.ep, EPOLL_CTL_ADD, wake_fd, &ev) < 0) {
		close(sr.ep);
		sr.ep = -1;
	}
	return sr.ep;
}

/* Takes s off the set and the list (its connection stays as it is). */
static void unwait(struct stream *s)
{
	if (!s->waiting)
		return;
	epoll_ctl(sr.ep, EPOLL_CTL_DEL, s->src.fd, NULL);
	if (s->prev)
		s->prev->next = s->next;
	else
		sr.waiting = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
	s->waiting = 0;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	ssize_t n;

	(void)pos;
	if (s->cut)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = s->src.read(s->src.cls, buf, max);
	if (n > 0)
		return n;
	if (n == -1)
		return MHD_CONTENT_READER_END_OF_STREAM;
	ev.data.ptr = s;
	if (n < -1 || sr.ep < 0 || epoll_ctl(sr.ep, EPOLL_CTL_ADD, s->src.fd, &ev) < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	/* Nothing yet: the connection waits for the source's socket. */
	s->waiting = 1;
	s->until = fk_now() + FK_HOOK_STREAM_IDLE_SECONDS;
	s->next = sr.waiting;
	if (sr.waiting)
		sr.waiting->prev = s;
	sr.waiting = s;
	MHD_suspend_connection(s->c);
	return 0;
}

static void reader_free(void *cls)
{
	struct stream *s = cls;

	unwait(s);
	fk_stream_drop(&s->src);
	free(s);
}

struct MHD_Response *fk_stream_response(struct MHD_Connection *c, struct fk_body_src *src)
{
	struct stream *s = calloc(1, sizeof *s);
	struct MHD_Response *r;

	if (!s) {
		fk_stream_drop(src);
		return NULL;
	}
	s->c = c;
	s->src = *src;
	memset(src, 0, sizeof *src);
	r = MHD_create_response_from_callback(s->src.size == FK_ANSWER_NO_LENGTH ? MHD_SIZE_UNKNOWN
					      : s->src.size, 16384, reader, s, reader_free);
	if (!r)
		reader_free(s);
	return r;
}

/* Resumes s, cut or not. */
static void resume(struct stream *s, int cut)
{
	unwait(s);
	s->cut = cut;
	MHD_resume_connection(s->c);
}

int fk_stream_run(void)
{
	struct epoll_event evs[64];
	double now = fk_now();
	int n, resumed = 0;

	if (sr.ep < 0 || !sr.waiting)
		return 0;
	n = epoll_wait(sr.ep, evs, 64, 0);
	for (int i = 0; i < n; i++) {
		struct stream *s = evs[i].data.ptr;

		if (s && s->waiting) {
			resume(s, 0);
			resumed++;
		}
	}
	for (struct stream *s = sr.waiting, *nx; s; s = nx) {
		nx = s->next;
		if (now >= s->until) {
			resume(s, 1);
			resumed++;
		}
	}
	return resumed;
}

int fk_stream_timeout(void)
{
	double now = fk_now(), first = -1;

	for (struct stream *s = sr.waiting; s; s = s->next)
		if (first < 0 || s->until < first)
			first = s->until;
	if (first < 0)
		return -1;
	return first <= now ? 0 : (int)((first - now) * 1000) + 1;
}

int fk_stream_stop(void)
{
	int n = 0;

	while (sr.waiting) {
		resume(sr.waiting, 1);
		n++;
	}
	return n;
}

void fk_stream_forget(void)
{
	/* The daemon's state cannot be trusted: its connections are never
	 * resumed, their sources are closed, the rest goes with it. */
	while (sr.waiting) {
		struct stream *s = sr.waiting;

		unwait(s);
		s->cut = 1;
		fk_stream_drop(&s->src);
	}
}

void fk_stream_drop(struct fk_body_src *src)
{
	if (src->read && src->free)
		src->free(src->cls);
	memset(src, 0, sizeof *src);
}

void fk_stream_atfork_child(void)
{
	/* The set was made in the parent's hook thread's table. */
	sr.ep = -1;
	sr.waiting = NULL;
}
