/*
 * uspin [MS] - spins in user space for MS milliseconds of CPU time (default 200) in two
 * threads, the main one and one it starts, then prints "uspin: done".  Each thread calls
 * checkpoint(n, ns) after each millisecond of its own CPU time: its n-th, when the thread
 * has used ns nanoseconds (CLOCK_THREAD_CPUTIME_ID).  For the tests of perf .process probes:
 * the task clock of each thread counts what it runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static long limit_ms = 200;

NOINLINE void checkpoint(long n, long long ns)
{
	__asm__ volatile("" : : "r"(n), "r"(ns) : "memory");
}

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *spin(void *arg)
{
	long n = 0;

	(void)arg;
	while (n < limit_ms) {
		long long ns = thread_ns();

		if (ns >= (n + 1) * 1000000LL)
			checkpoint(++n, ns);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t other;

	if (argc > 1)
		limit_ms = atol(argv[1]);
	if (pthread_create(&other, NULL, spin, NULL) != 0)
		return 1;
	spin(NULL);
	pthread_join(other, NULL);
	printf("uspin: done\n");
	return 0;
}
