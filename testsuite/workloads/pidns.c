/*
 * pidns SECONDS - a process in a pid namespace of its own, for --target-namespaces:
 * unshares the pid namespace, forks the child that is process 1 there (named "nschild"),
 * prints the child's pid as the initial namespace sees it, and lets the child call
 * getppid() every 10 ms for SECONDS seconds (the parent waits for it).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "workload.h"

#define USAGE "SECONDS"

int main(int argc, char **argv)
{
	long seconds;
	pid_t child;
	int first;

	workload_options(argc, argv, &first, 1, USAGE);
	seconds = workload_count(argv[first], USAGE);
	if (unshare(CLONE_NEWPID) != 0) {
		fprintf(stderr, "pidns: unshare: %s\n", strerror(errno));
		return 1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "pidns: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		prctl(PR_SET_NAME, "nschild");
		for (long i = 0; i < seconds * 100; i++) {
			syscall(SYS_getppid);
			usleep(10000);
		}
		return 0;
	}
	printf("%d\n", (int)child);
	fflush(stdout);
	waitpid(child, NULL, 0);
	return 0;
}
