/*
 * reads [-b] [-w] N - makes exactly N read(2) system calls of one byte from /dev/zero and
 * prints
 *   reads: N read calls in T ns
 *
 * The calls go through syscall(2), so each enters the kernel at __x64_sys_read; the
 * program's start-up reads nothing (it is static), so a syscall.read probe filtered on
 * this process counts N.
 *
 * -b: also N one-byte pread64(2) calls of /dev/zero in turns with them (workload.h),
 * which syscall.read does not see, and a second line
 *   reads: N pread64 calls in T ns
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-b] [-w] N"

static int fd;
static char byte;

static void call_read(void)
{
	syscall(SYS_read, fd, &byte, 1);
}

static void call_pread64(void)
{
	syscall(SYS_pread64, fd, &byte, 1, 0);
}

int main(int argc, char **argv)
{
	long long probed, baseline;
	int first, paired = workload_baseline_option(&argc, &argv);
	long n;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "reads: cannot open /dev/zero: %s\n", strerror(errno));
		return 1;
	}
	workload_in_turns(n, call_read, paired ? call_pread64 : NULL, &probed, &baseline);
	printf("reads: %ld read calls in %lld ns\n", n, probed);
	if (paired)
		printf("reads: %ld pread64 calls in %lld ns\n", n, baseline);
	return 0;
}
