/* SPDX-License-Identifier: MIT */
/* A C program that mounts the hook's routes in a server of its own: it
 * links libflamekit-hook.so and libjemalloc.so.2 and hands requests to
 * fk_hook_handle (tests/hook/handle.t). Each line of stdin is
 * "PEER METHOD TARGET [HEADER:VALUE...]" ('+' in a value is a space;
 * PEER: vouched, unknown,
 * uid:N, or tcp:REMOTE,LOCAL); it answers one line, "answer STATUS
 * CONTENT-TYPE LEN|" and the body's first line (bytes outside ASCII as
 * '.'). "grow N" keeps N more 64 KiB blocks, allocated
 * in handle_grow_cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamekit_hook.h"

static void **kept;
static size_t nkept;

__attribute__((noinline)) void handle_grow_cache(size_t n);
__attribute__((noinline)) void handle_grow_cache(size_t n)
{
	void **k = realloc(kept, (nkept + n) * sizeof *k);

	if (!k)
		exit(1);
	kept = k;
	for (size_t i = 0; i < n; i++) {
		kept[nkept] = malloc(65536);
		memset(kept[nkept++], 1, 65536);
	}
}

static int parse_peer(char *w, struct fk_hook_peer *p)
{
	char *comma;

	memset(p, 0, sizeof *p);
	if (strcmp(w, "vouched") == 0) {
		p->kind = FK_HOOK_PEER_VOUCHED;
	} else if (strcmp(w, "unknown") == 0) {
		p->kind = FK_HOOK_PEER_UNKNOWN;
	} else if (strncmp(w, "uid:", 4) == 0) {
		p->kind = FK_HOOK_PEER_UID;
		p->uid = strtoul(w + 4, NULL, 10);
	} else if (strncmp(w, "tcp:", 4) == 0 && (comma = strchr(w, ','))) {
		*comma = '\0';
		p->kind = FK_HOOK_PEER_TCP;
		p->remote = w + 4;
		p->local = comma + 1;
	} else {
		return -1;
	}
	return 0;
}

int main(void)
{
	char line[4096];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof line, stdin)) {
		const char *hdr[32];
		size_t nh = 0;
		struct fk_hook_peer peer;
		struct fk_hook_response r;
		char err[256], *save = NULL, *w[3], *h;
		size_t i, n = 0;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "grow ", 5) == 0) {
			handle_grow_cache(strtoul(line + 5, NULL, 10));
			printf("grown %zu\n", nkept);
			continue;
		}
		for (i = 0; i < 3 && (w[i] = strtok_r(i ? NULL : line, " ", &save)); i++)
			;
		if (i < 3 || parse_peer(w[0], &peer) < 0) {
			printf("bad line\n");
			continue;
		}
		while (nh < 30 && (h = strtok_r(NULL, " ", &save))) {
			char *colon = strchr(h, ':');

			if (!colon)
				continue;
			*colon = '\0';
			for (char *c = colon + 1; *c; c++)
				if (*c == '+')
					*c = ' ';
			hdr[nh++] = h;
			hdr[nh++] = colon + 1;
		}
		if (fk_hook_handle(w[1], w[2], hdr, nh / 2, &peer, &r, err, sizeof err) < 0) {
			printf("error %s\n", err);
			continue;
		}
		printf("answer %d %s %zu|", r.status, r.content_type, r.len);
		for (n = 0; n < r.len && r.body[n] != '\n'; n++)
			putchar(r.body[n] >= ' ' && r.body[n] < 127 ? r.body[n] : '.');
		putchar('\n');
		fk_hook_response_release(&r);
	}
	return 0;
}
