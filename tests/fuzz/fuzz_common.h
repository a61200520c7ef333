/* What the fuzz harnesses share: the input written to a file, since the loaders read paths
 * (the real path through fopen and the text check is what is fuzzed). */
#ifndef ROOFCOST_FUZZ_COMMON_H
#define ROOFCOST_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_path[96];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
}

/* A file of this process holding data; the same path every call, removed at exit. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	char *path = fuzz_path;
	FILE *f;
	if (!path[0]) {
		snprintf(fuzz_path, sizeof fuzz_path, "/tmp/roofcost-fuzz-%ld%s", (long)getpid(), suffix);
		atexit(fuzz_cleanup);
	}
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	return path;
}

#endif
