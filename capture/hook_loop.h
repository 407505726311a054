/* SPDX-License-Identifier: MIT */
/* The hook's thread (hook_loop.c) and the sockets it serves
 * (hook_sockets.c): the loop's own structure, private to the two. */
#ifndef FK_HOOK_LOOP_H
#define FK_HOOK_LOOP_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "hook_int.h"

/* What the loop polls in one round (its sources, below): the wake pipe,
 * two sockets waiting for the serving half, the registry and a registry
 * connection, every worker's, then the daemons' two and their work pipe,
 * so that a full table of workers leaves the daemons theirs. */
#define MAX_POLL (8 + FK_HOOK_MAX_WORKERS)

struct poll_set {
	struct pollfd pf[MAX_POLL];
	int n;
	int timeout;               /* ms; -1: none */
};

struct fk_loop {
	pthread_t th;
	struct fk_loop_cfg cfg;
	atomic_int tid;            /* the thread's id once it runs */
	int private_fds;           /* its table is its own */
	int ctl[2];                /* wake pipe, in the thread's table */
	atomic_int quit;
	/* the start: the starter waits until the thread serves or failed */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;                 /* 0 starting, 1 running, -1 failed, 2 ended */
	int abandoned;             /* ended before it ran: it frees itself */
	struct fk_err err;
	/* one call from another thread at a time (fk_loop_call) */
	void (*job)(void *);
	void *job_arg;
	int job_done;
	struct MHD_Daemon *pub;    /* the address of FLAMEKIT_HTTP */
	struct MHD_Daemon *own;    /* a worker's private socket */
	int pub_fd, own_fd;        /* their sockets before the serving half
				      is loaded (-1: none) */
	int load_failed;           /* the serving half could not be loaded */
	double retry_at;           /* when to try taking the address over */
	double retry_step;
	struct poll_set ps;         /* the round's descriptors */
};

/* hook_sockets.c: what the loop listens on. */
/* Whether lp serves the public address (now or once loaded). */
int fk_sock_is_public(const struct fk_loop *lp);
/* What the thread serves, made in its own table: 0 or -1 with err. */
int fk_sock_setup(struct fk_loop *lp, struct fk_err *err);
/* Loads the serving half and hands it the sockets. */
void fk_sock_serve(struct fk_loop *lp);
/* A daemon that libmicrohttpd gave up on, made anew. */
void fk_sock_renew(struct fk_loop *lp);
/* A worker's registry connection ended: join again, wait, or take over. */
void fk_sock_take_over(struct fk_loop *lp);
void fk_sock_close_own(struct fk_loop *lp);
void fk_sock_close_public(struct fk_loop *lp);

#endif
