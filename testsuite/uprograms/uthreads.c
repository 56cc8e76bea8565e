/*
 * uthreads - the multithreaded program of the user-space probe tests (/usr/bin/uthreads in
 * the sysroot, built -g -O0 -pthread by ./build).  main starts two threads; both wait
 * until the other is running too (a barrier), then each calls worker(id) once, id 1 and 2,
 * which returns 1 + 2 + ... + 100*id; main joins them and prints
 *   uthreads: worker 1 -> 5050, worker 2 -> 20100
 */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t both;

int worker(int id)
{
	int s = 0, k;

	for (k = 1; k <= 100 * id; k++)
		s += k;
	return s;
}

static void *thread_main(void *arg)
{
	int *slot = arg; /* the id in, the result out */

	pthread_barrier_wait(&both);
	*slot = worker(*slot);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int v[2] = { 1, 2 }, i;

	pthread_barrier_init(&both, NULL, 2);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, &v[i]) != 0) {
			fprintf(stderr, "uthreads: cannot start a thread\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("uthreads: worker 1 -> %d, worker 2 -> %d\n", v[0], v[1]);
	return 0;
}
