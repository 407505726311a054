/* SPDX-License-Identifier: MIT */
/* The program debuginfod.t and debuginfod-hostile.t profile: two
 * functions of its own on the allocating path; with an argument it
 * waits, for the hook. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) static void *fkdi_leaf(size_t n)
{ void *p = malloc(n); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) static void *fkdi_middle(size_t n)
{ void *p = fkdi_leaf(n); __asm__ volatile("" ::: "memory"); return p; }
int main(int argc, char **argv)
{
	static void *keep[512];
	(void)argv;
	for (int i = 0; i < 512; i++)
		keep[i] = fkdi_middle(4096);
	printf("%p\n", keep[7]);
	fflush(stdout);
	if (argc > 1)
		sleep(300);
	return 0;
}
