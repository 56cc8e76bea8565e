/*
 * syscalls [-b] [-w] N - makes exactly N getppid(2) system calls and prints
 *   syscalls: N getppid calls in T ns
 *
 * The calls go through syscall(2), never a library cache, so every one of them enters the
 * kernel at __x64_sys_getppid: a probe there filtered on this process counts exactly N.
 * Nothing else in the program calls getppid.
 *
 * -b: also N getpid(2) calls, a baseline no probe on getppid sees, made in turns with the
 * getppid calls (1000 of each at a time) and timed apart, and a second line
 *   syscalls: N getpid calls in T ns
 * The two then meet the same speed of the machine: an emulated guest's speed drifts by
 * a factor of two from one second to the next (bench/probe-overhead.sh).
 */
#include <string.h>
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-b] [-w] N"
#define TURN 1000

int main(int argc, char **argv)
{
	long long start, probed = 0, baseline = 0;
	long n, i, done;
	int first, paired = argc > 1 && !strcmp(argv[1], "-b");

	if (paired) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	for (done = 0; done < n; done += TURN) {
		long turn = n - done < TURN ? n - done : TURN;

		start = workload_now_ns();
		for (i = 0; i < turn; i++)
			syscall(SYS_getppid);
		probed += workload_now_ns() - start;
		if (!paired)
			continue;
		start = workload_now_ns();
		for (i = 0; i < turn; i++)
			syscall(SYS_getpid);
		baseline += workload_now_ns() - start;
	}
	printf("syscalls: %ld getppid calls in %lld ns\n", n, probed);
	if (paired)
		printf("syscalls: %ld getpid calls in %lld ns\n", n, baseline);
	return 0;
}
