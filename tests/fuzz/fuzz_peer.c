/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what the hook's peer lookup reads (capture/
 * serve_peer.c): the kernel's sock_diag answer, and /proc/net/tcp text
 * scanned for an address pair. The input's first byte splits it: the
 * answer is the whole input; the scan looks, in the rest, for the pair
 * the first line names ("LOCAL REMOTE"). A uid is reported only from a
 * line that holds both names exactly, and only what the text says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char local[64] = "", remote[64] = "";
	const char *text = (const char *)data, *nl, *sp;
	uid_t uid = 12345;
	size_t n;
	int rc;

	/* A copy of exactly size bytes, so a read past the end shows. */
	void *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	rc = fk_peer_parse_diag(copy, size, &uid);
	if (rc < -1 || rc > 1)
		abort();
	free(copy);

	nl = memchr(text, '\n', size);
	if (!nl)
		return 0;
	sp = memchr(text, ' ', (size_t)(nl - text));
	if (!sp || (size_t)(sp - text) >= sizeof local || (size_t)(nl - sp - 1) >= sizeof remote)
		return 0;
	memcpy(local, text, (size_t)(sp - text));
	memcpy(remote, sp + 1, (size_t)(nl - sp - 1));
	if (memchr(local, '\0', (size_t)(sp - text)) || memchr(remote, '\0', (size_t)(nl - sp - 1)))
		return 0;
	n = size - (size_t)(nl + 1 - text);
	copy = malloc(n ? n : 1);
	if (!copy)
		return 0;
	memcpy(copy, nl + 1, n);
	uid = 12345;
	rc = fk_peer_scan(copy, n, local, remote, &uid);
	if (rc == 1 && (!*local || !*remote || !memmem(copy, n, local, strlen(local)) ||
			!memmem(copy, n, remote, strlen(remote)) || uid == (uid_t)-1))
		abort();
	if (rc == 0 && uid != 12345)
		abort();
	free(copy);
	return 0;
}
