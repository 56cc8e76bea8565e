/*
 * sigblocked CMD [ARG...] - runs CMD with SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2 and
 * SIGCHLD blocked, as a careless parent might hand them down: stapio must unblock what
 * it handles (the staprun_security test).
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2, SIGCHLD };
	sigset_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: sigblocked CMD [ARG...]\n");
		return 2;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
