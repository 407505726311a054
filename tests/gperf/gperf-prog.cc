// SPDX-License-Identifier: MIT
// A program that makes gperftools/tcmalloc heap profiles of every form
// (tests/gperf/gperf.t builds it at test time against libtcmalloc):
// HEAPPROFILE's dumps ("@ heapprofile"), MallocExtension's sampled heap
// ("@ heap_v2/R", TCMALLOC_SAMPLE_PARAMETER=R) and its growth stacks
// ("@ growth"). A shared file mapping is live, so the maps say "rw--"
// (gperftools writes '-' for a mapping that is not private).
// Usage: gperf-prog OUTDIR
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include <gperftools/heap-profiler.h>
#include <gperftools/malloc_extension.h>

static void *keep[40000];

__attribute__((noinline)) static void *small_blocks(size_t n)
{
	void *p = malloc(n);

	memset(p, 1, n);
	return p;
}

__attribute__((noinline)) static void *big_blocks(size_t n)
{
	return calloc(1, n);
}

__attribute__((noinline)) static void work(void)
{
	int i;

	for (i = 0; i < 30000; i++)
		keep[i] = small_blocks(48 + (i % 9) * 16);
	for (i = 30000; i < 30200; i++)
		keep[i] = big_blocks(1 << 17);
	for (i = 0; i < 30000; i += 3) {
		free(keep[i]);
		keep[i] = 0;
	}
}

static int save(const char *dir, const char *name, const std::string &s)
{
	std::string path = std::string(dir) + "/" + name;
	FILE *f = fopen(path.c_str(), "w");

	if (!f || fwrite(s.data(), 1, s.size(), f) != s.size() || fclose(f) != 0) {
		perror(path.c_str());
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	std::string sample, growth, shared = std::string(argc > 1 ? argv[1] : ".") + "/shared.bin";
	int fd = open(shared.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
	void *m;

	if (argc != 2 || fd < 0 || ftruncate(fd, 1 << 16) < 0)
		return 2;
	m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 2;
	work();
	if (IsHeapProfilerRunning())
		HeapProfilerDump("end");
	MallocExtension::instance()->GetHeapSample(&sample);
	MallocExtension::instance()->GetHeapGrowthStacks(&growth);
	if (save(argv[1], "sample.heap", sample) || save(argv[1], "growth.heap", growth))
		return 1;
	munmap(m, 1 << 16);
	close(fd);
	return 0;
}
