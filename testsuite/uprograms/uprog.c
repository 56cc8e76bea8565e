/*
 * uprog [N] - the program of the user-space probe tests (process("/usr/bin/uprog")...),
 * built by ./build into the sysroot: -g -O0 as /usr/bin/uprog, the same at -g -O2 as
 * uprog-O2, and uprog-stripped without any symbol.  N rounds (default 3), i = 1..N, of:
 *   counter        a global, incremented first (it is i during round i)
 *   add(i, 10*i)   returns 11*i
 *   area(&r)       r = {w = i, h = 2*i, name = "box"}: returns 2*i*i
 *   uprog:tick     SDT marker, arguments i and r.name
 *   outer(i)       -> middle(i) -> inner(i) -> lib_mul(i, 7) of libustap.so (backtraces):
 *                  inner returns 7*i+1, middle 7*i+2, outer 7*i+3 (no tail calls)
 *   lib_twice(i)   of libustap.so, returns 2*i
 *   do_work(i)     fires SDT marker uprog:work only while its semaphore is set (uprog-work.c)
 * and once: a first line "uprog: N rounds", SDT marker uprog:start (no arguments,
 * before the rounds), greet("world") and
 * sum_to(N), whose loop body (the line marked LOOP_BODY) runs N times.  The output
 * depends on N only, and on whether uprog:work is probed ("work semaphore seen N" or 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "libustap.h"

#define NOINLINE __attribute__((noinline, noclone))

struct rect {
	int w, h;
	const char *name;
};

long counter;

int do_work(int i); /* uprog-work.c */

int add(int a, int b)
{
	return a + b;
}

long area(struct rect *r)
{
	return (long)r->w * r->h;
}

void greet(const char *name)
{
	printf("hello, %s\n", name);
}

int sum_to(int n)
{
	int s = 0, k;

	for (k = 1; k <= n; k++)
		s += k; /* LOOP_BODY */
	return s;
}

NOINLINE int inner(int x)
{
	return lib_mul(x, 7) + 1;
}

NOINLINE int middle(int x)
{
	return inner(x) + 1;
}

NOINLINE int outer(int x)
{
	return middle(x) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long adds = 0, areas = 0, chain = 0, twice = 0;
	int i, seen = 0;

	/* the first use of .rodata: its page (with "box") is mapped from here on, so that
	 * probes may read the strings (a handler cannot wait for a page to come in) */
	printf("uprog: %d rounds\n", n);
	STAP_PROBE(uprog, start);
	for (i = 1; i <= n; i++) {
		struct rect r = { i, 2 * i, "box" };

		counter++;
		adds += add(i, 10 * i);
		areas += area(&r);
		STAP_PROBE2(uprog, tick, i, r.name);
		chain += outer(i);
		twice += lib_twice(i);
		seen += do_work(i);
	}
	greet("world");
	printf("uprog: %d rounds, counter %ld\n", n, counter);
	printf("add %ld, area %ld, chain %ld, twice %ld\n", adds, areas, chain, twice);
	printf("sum_to %d, lib_calls %d\n", sum_to(n), lib_calls);
	printf("work semaphore seen %d\n", seen);
	return 0;
}
