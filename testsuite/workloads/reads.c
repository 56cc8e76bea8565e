/*
 * reads [-w] N - makes exactly N read(2) system calls of one byte from /dev/zero and
 * prints
 *   reads: N read calls in T ns
 *
 * The calls go through syscall(2), so each enters the kernel at __x64_sys_read; the
 * program's start-up reads nothing (it is static), so a syscall.read probe filtered on
 * this process counts N.
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-w] N"

int main(int argc, char **argv)
{
	long long start, end;
	long n, i;
	int first, fd;
	char byte;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "reads: cannot open /dev/zero: %s\n", strerror(errno));
		return 1;
	}
	start = workload_now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_read, fd, &byte, 1);
	end = workload_now_ns();
	printf("reads: %ld read calls in %lld ns\n", n, end - start);
	return 0;
}
