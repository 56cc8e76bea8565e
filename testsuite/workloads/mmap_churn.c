/*
 * mmap_churn [N] - the mmap lock under contention, for the user backtrace tests: one thread
 * maps and unmaps a page N times (default 20000: the lock taken for writing over and
 * over), while the main thread spins in user space (spin(), not inlined) until it is done;
 * then prints "mmap_churn: N maps".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static volatile int done;
static long maps;

static void *churn(void *arg)
{
	long n = *(long *)arg;

	for (maps = 0; maps < n; maps++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			break;
		*(volatile char *)p = 1;
		munmap(p, 4096);
	}
	done = 1;
	return NULL;
}

__attribute__((noinline)) static unsigned long spin(unsigned long x)
{
	return x * 6364136223846793005UL + 1442695040888963407UL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	unsigned long x = 1;
	pthread_t t;

	if (n <= 0 || pthread_create(&t, NULL, churn, &n))
		return 2;
	while (!done)
		x = spin(x);
	pthread_join(t, NULL);
	printf("mmap_churn: %ld maps%s\n", maps, x == 42 ? "!" : "");
	return 0;
}
