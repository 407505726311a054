/* SPDX-License-Identifier: MIT */
/* A test host that loads and unloads libraries (tests/hook/maps-time.t):
 * commands on stdin, one a line, answered on stdout:
 *   load PATH   dlopen PATH; answers "loaded 0xBASE" (where it is mapped)
 *   alloc N     keep N more 64 KiB blocks from the library's fkdl_alloc;
 *               answers "allocated TOTAL"
 *   unload      dlclose the library (the blocks stay); answers "unloaded"
 *   quit        exit 0 (also at end of input)
 * Run it preloaded with the hook and jemalloc. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (64 * 1024)

int main(void)
{
	void *lib = NULL, *(*alloc)(size_t) = NULL;
	static void *kept[100000];
	size_t nkept = 0;
	char line[4200];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof line, stdin)) {
		long n;

		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "load ", 5) == 0) {
			Dl_info di;

			lib = dlopen(line + 5, RTLD_NOW | RTLD_LOCAL);
			alloc = lib ? (void *(*)(size_t))dlsym(lib, "fkdl_alloc") : NULL;
			if (!alloc || !dladdr((void *)alloc, &di)) {
				printf("failed %s\n", dlerror());
				continue;
			}
			printf("loaded %p\n", di.dli_fbase);
		} else if (sscanf(line, "alloc %ld", &n) == 1 && alloc) {
			for (long i = 0; i < n && nkept < sizeof kept / sizeof kept[0]; i++)
				kept[nkept++] = alloc(BLOCK);
			printf("allocated %zu\n", nkept);
		} else if (strcmp(line, "unload") == 0 && lib) {
			dlclose(lib);
			lib = NULL;
			alloc = NULL;
			printf("unloaded\n");
		} else if (strcmp(line, "quit") == 0) {
			break;
		} else {
			printf("unknown\n");
		}
	}
	return 0;
}
