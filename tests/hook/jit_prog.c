/* SPDX-License-Identifier: MIT */
/* A test host for the hook's backtrace (tests/hook/jit.t): allocates from
 * generated code, the way a JIT's code does. Commands on stdin, one a line,
 * each answered on stdout:
 *   plain N       N mallocs of 4096 bytes from generated code without
 *                 unwind information, running on a foreign stack (an
 *                 mmap'd block full of pointer-like garbage) with rbp
 *                 holding garbage
 *   registered N  the same after registering (__register_frame) unwind
 *                 information for the generated code that says the caller's
 *                 frame is at rbp: a JIT's tables that are wrong here
 *   quit          exit 0
 * It says "ready" first. The blocks are kept, so the profile shows them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef void *(*gen_fn)(void *(*m)(size_t), size_t size, void *stack_top);

void __register_frame(void *begin);

/* push rbp; push rbx; mov rbx,rsp; mov rsp,rdx; mov rbp,GARBAGE;
 * mov rax,rdi; mov rdi,rsi; call rax; mov rsp,rbx; pop rbx; pop rbp; ret */
static const uint8_t code[] = {
	0x55, 0x53, 0x48, 0x89, 0xe3, 0x48, 0x89, 0xd4,
	0x48, 0xbd, 0x40, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41,
	0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0xff, 0xd0,
	0x48, 0x89, 0xdc, 0x5b, 0x5d, 0xc3,
};

/* .eh_frame for the generated code: a CIE (zR, absolute pointers, CFA =
 * rsp+8, return address at CFA-8) and an FDE saying CFA = rbp+16, then
 * the terminator. */
static uint8_t ehframe[64] __attribute__((aligned(8))) = {
	20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x00,
	0x0c, 7, 8, 0x90, 1, 0, 0,
	28, 0, 0, 0, 28, 0, 0, 0,
	/* pc_begin (8), pc_range (8) filled in at run time */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0x0c, 6, 16, 0x86, 2, 0, 0,
	0, 0, 0, 0,
};

int main(void)
{
	size_t stack_size = 1 << 16, nkept = 0;
	static void *kept[100000];
	uint8_t *page;
	uintptr_t *stack;
	char line[128];
	gen_fn gen;
	int registered = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || stack == MAP_FAILED)
		return 1;
	memcpy(page, code, sizeof code);
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	/* Garbage that looks like return addresses and frame pointers. */
	for (size_t i = 0; i < stack_size / sizeof *stack; i++)
		stack[i] = i % 3 == 0 ? (uintptr_t)main + 17 * i :
			   i % 3 == 1 ? 0x4141414141414141u : (uintptr_t)(stack + i * 977);
	gen = (gen_fn)(void *)page;
	printf("ready\n");
	while (fgets(line, sizeof line, stdin)) {
		long n = 0;
		int reg = sscanf(line, "registered %ld", &n) == 1;

		if (!reg && sscanf(line, "plain %ld", &n) != 1) {
			if (strcmp(line, "quit\n") == 0)
				break;
			printf("unknown\n");
			continue;
		}
		if (reg && !registered) {
			uint64_t begin = (uintptr_t)page, range = sizeof code;

			memcpy(ehframe + 32, &begin, 8);
			memcpy(ehframe + 40, &range, 8);
			__register_frame(ehframe);
			registered = 1;
		}
		for (long i = 0; i < n && nkept < sizeof kept / sizeof *kept; i++)
			kept[nkept++] = gen(malloc, 4096, (char *)stack + stack_size - 64);
		printf("done %zu\n", nkept);
	}
	return 0;
}
