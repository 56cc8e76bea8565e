/*
 * workload.h - what the guest's workload programs share: argument checks, a clock, and the
 * start signal of -w.
 *
 * A workload does an exact number of some cheap operation and prints how many it did and
 * how long that took, so a test can compare a probe's count with the workload's own.
 * With -w it first prints "ready" and waits for SIGUSR1 before doing anything, so that a
 * session can attach to it (staprun -x PID) before the counted work starts.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *workload_name;

static void __attribute__((noreturn)) workload_usage(const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", workload_name, usage);
	exit(2);
}

static long workload_count(const char *arg, const char *usage)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 0)
		workload_usage(usage);
	return n;
}

static inline long long workload_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Blocks SIGUSR1 before saying "ready", so a signal sent as soon as the line is seen is
 * kept pending rather than killing the process.
 */
static void workload_wait_for_go(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig) != 0) {
		perror("sigwait");
		exit(1);
	}
}

/*
 * -b, before the other options: the program also makes a baseline, calls of another
 * system call that the benchmark's probe never sees, in turns with the measured ones
 * (WORKLOAD_TURN of each at a time) and timed apart.  The two kinds then meet the same
 * speed of the machine, which in the emulated guest halves whenever its other vCPU has
 * work (bench/probe-overhead.sh).  Takes -b out of the arguments.
 */
#define WORKLOAD_TURN 1000

static inline int workload_baseline_option(int *argc, char ***argv)
{
	if (*argc < 2 || strcmp((*argv)[1], "-b"))
		return 0;
	(*argv)[1] = (*argv)[0];
	(*argv)++;
	(*argc)--;
	return 1;
}

/* N calls of MEASURED, and with a BASELINE N of it in turns: their times, apart. */
static inline void workload_in_turns(long n, void (*measured)(void), void (*baseline)(void),
				     long long *measured_ns, long long *baseline_ns)
{
	long long start;
	long done, i;

	*measured_ns = *baseline_ns = 0;
	for (done = 0; done < n; done += WORKLOAD_TURN) {
		long turn = n - done < WORKLOAD_TURN ? n - done : WORKLOAD_TURN;

		start = workload_now_ns();
		for (i = 0; i < turn; i++)
			measured();
		*measured_ns += workload_now_ns() - start;
		if (!baseline)
			continue;
		start = workload_now_ns();
		for (i = 0; i < turn; i++)
			baseline();
		*baseline_ns += workload_now_ns() - start;
	}
}

/* Parses [-w] and leaves the remaining arguments at argv[*first]. */
static void workload_options(int argc, char **argv, int *first, int nargs, const char *usage)
{
	int i = 1, wait = 0;

	workload_name = argv[0] && *argv[0] ? argv[0] : "workload";
	if (i < argc && !strcmp(argv[i], "-w")) {
		wait = 1;
		i++;
	}
	if (argc - i != nargs)
		workload_usage(usage);
	*first = i;
	if (wait)
		workload_wait_for_go();
}

#endif
