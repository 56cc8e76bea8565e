/*
 * syscalls [-b] [-w] N - makes exactly N getppid(2) system calls and prints
 *   syscalls: N getppid calls in T ns
 *
 * The calls go through syscall(2), never a library cache, so every one of them enters the
 * kernel at __x64_sys_getppid: a probe there filtered on this process counts exactly N.
 * Nothing else in the program calls getppid.
 *
 * -b: also N getpid(2) calls in turns with them (workload.h), and a second line
 *   syscalls: N getpid calls in T ns
 */
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-b] [-w] N"

static void call_getppid(void)
{
	syscall(SYS_getppid);
}

static void call_getpid(void)
{
	syscall(SYS_getpid);
}

int main(int argc, char **argv)
{
	long long probed, baseline;
	int first, paired = workload_baseline_option(&argc, &argv);
	long n;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	workload_in_turns(n, call_getppid, paired ? call_getpid : NULL, &probed, &baseline);
	printf("syscalls: %ld getppid calls in %lld ns\n", n, probed);
	if (paired)
		printf("syscalls: %ld getpid calls in %lld ns\n", n, baseline);
	return 0;
}
