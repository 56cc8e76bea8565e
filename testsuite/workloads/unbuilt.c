/*
 * unbuilt [-w] N - the system calls x86-64's table still numbers but this kernel does not
 * build (sys_ni.c answers them -ENOSYS), each made N times through syscall(2):
 *
 *   lookup_dcookie(0x1234, buf, 16)   (212: 6.1 builds no dcookies, 6.12 has none)
 *   _sysctl(args)                      (156: retired in 5.5)
 *
 * and then prints what the last of each returned:
 *   unbuilt: N calls each, lookup_dcookie -1 ENOSYS, _sysctl -1 ENOSYS
 */
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-w] N"

static const char *error_name(int e)
{
	return e == ENOSYS ? "ENOSYS" : e == 0 ? "none" : strerror(e);
}

int main(int argc, char **argv)
{
	static char buf[16];
	static long args[10];
	long n, a = 0, b = 0;
	int first, ea = 0, eb = 0;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	for (long i = 0; i < n; i++) {
		errno = 0;
		a = syscall(212, 0x1234L, buf, 16L);
		ea = errno;
		errno = 0;
		b = syscall(156, args);
		eb = errno;
	}
	printf("unbuilt: %ld calls each, lookup_dcookie %ld %s, _sysctl %ld %s\n", n, a,
	       error_name(ea), b, error_name(eb));
	return 0;
}
