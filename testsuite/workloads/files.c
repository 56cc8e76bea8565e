/*
 * files [-w] N PATH - opens PATH, reads from it once and closes it, N times, then prints
 *   files: N opens, N reads, B bytes of PATH in T ns
 *
 * Read number i (from 1) asks for 2^k bytes, k the number of trailing zero bits of i, at
 * most 512 bytes: half the reads ask for 1 byte, a quarter for 2, ...  With N = 1023 the
 * sizes 1, 2, 4, ... 512 come 512, 256, 128, ... 1 times, 5120 bytes in all: a known
 * distribution for tests of maps, sorting and histograms on what a probe records (the
 * size is vfs_read's third argument).  Nothing else in the program opens or reads a
 * file: a static program's start-up does neither.
 */
#include <fcntl.h>

#include "workload.h"

#define USAGE "[-w] N PATH"

int main(int argc, char **argv)
{
	static char buf[512];
	long long start, end, bytes = 0;
	const char *path;
	long n, i;
	int first;

	workload_options(argc, argv, &first, 2, USAGE);
	n = workload_count(argv[first], USAGE);
	path = argv[first + 1];
	start = workload_now_ns();
	for (i = 1; i <= n; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t got;

		if (fd < 0) {
			fprintf(stderr, "files: cannot open %s: %s\n", path, strerror(errno));
			return 1;
		}
		got = read(fd, buf, i % 512 ? (size_t)(i & -i) : sizeof(buf));
		if (got < 0) {
			fprintf(stderr, "files: cannot read %s: %s\n", path, strerror(errno));
			return 1;
		}
		bytes += got;
		close(fd);
	}
	end = workload_now_ns();
	printf("files: %ld opens, %ld reads, %lld bytes of %s in %lld ns\n", n, n, bytes, path,
	       end - start);
	return 0;
}
