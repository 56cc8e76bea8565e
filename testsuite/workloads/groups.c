/*
 * groups [-w] N G - gives itself G supplementary groups (1..64, it runs as root in the
 * guest), then makes exactly N getgroups(2) calls that copy all G back, and prints
 *   groups: N getgroups calls of G groups in T ns
 *
 * Each call copies the groups one by one in a loop of the kernel's (groups_to_user in
 * kernel/groups.c), so a statement probe on a line of that loop counts N * G.
 */
#include <grp.h>
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-w] N G"

int main(int argc, char **argv)
{
	gid_t groups[64];
	long long start, end;
	long n, g, i;
	int first;

	workload_options(argc, argv, &first, 2, USAGE);
	n = workload_count(argv[first], USAGE);
	g = workload_count(argv[first + 1], USAGE);
	if (g < 1 || g > 64)
		workload_usage(USAGE);
	for (i = 0; i < g; i++)
		groups[i] = 1000 + i;
	if (setgroups(g, groups) != 0) {
		perror("setgroups");
		return 1;
	}
	start = workload_now_ns();
	for (i = 0; i < n; i++)
		if (syscall(SYS_getgroups, g, groups) != g) {
			perror("getgroups");
			return 1;
		}
	end = workload_now_ns();
	printf("groups: %ld getgroups calls of %ld groups in %lld ns\n", n, g, end - start);
	return 0;
}
