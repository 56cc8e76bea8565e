/*
 * syscalls [-w] N - makes exactly N getppid(2) system calls and prints
 *   syscalls: N getppid calls in T ns
 *
 * The calls go through syscall(2), never a library cache, so every one of them enters the
 * kernel at __x64_sys_getppid: a probe there filtered on this process counts exactly N.
 * Nothing else in the program calls getppid.
 */
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-w] N"

int main(int argc, char **argv)
{
	long long start, end;
	long n, i;
	int first;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	start = workload_now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	end = workload_now_ns();
	printf("syscalls: %ld getppid calls in %lld ns\n", n, end - start);
	return 0;
}
