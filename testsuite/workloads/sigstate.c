/*
 * sigstate - a process whose signal dispositions, blocked signals, limit of open files
 * and parents are known, for the tests of signal_funcs.stp and task_more.stp.  It:
 *
 *   - sets its RLIMIT_NOFILE to 37 (soft) and 100 (hard);
 *   - catches SIGUSR1 with on_signal(), flags SA_SIGINFO|SA_RESTART (the C library adds
 *     SA_RESTORER), blocking SIGINT and SIGTERM in the handler;
 *   - ignores SIGUSR2 (SIG_IGN);
 *   - catches SIGALRM with on_signal(), flags SA_ONSTACK|SA_NODEFER|SA_RESETHAND, no mask;
 *   - catches signal 40 (a real-time one, SIGRTMIN+8 as the kernel counts) with
 *     on_signal(), no flags but the library's, blocking signal 64;
 *   - blocks SIGHUP, SIGQUIT and signal 50 (sigprocmask);
 *   - prints "chain: NAME(PID) <- NAME(PID) ...": itself and its parents back to the one
 *     that process 1 started, read from /proc;
 *   - calls write(1021, on_signal, 0) (EBADF: no such descriptor), the probes' marker,
 *     whose buffer address is the handler's;
 *   - forks a child that names itself sigstate-child, prints its own "chain: " line and
 *     makes the same marker call, and waits for it;
 *   - prints "sigstate: pid PID child CHILD".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "sigstate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void on_signal(int sig)
{
	(void)sig;
}

static void catch(int sig, int flags, int mask1, int mask2)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (mask1)
		sigaddset(&sa.sa_mask, mask1);
	if (mask2)
		sigaddset(&sa.sa_mask, mask2);
	if (sigaction(sig, &sa, NULL) != 0)
		die("sigaction");
}

/* FILE of /proc/PID into BUF, without its last newline. */
static void proc_read(int pid, const char *file, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		die(path);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

static void print_chain(void)
{
	char comm[64], stat[512], *end;
	int pid = getpid(), depth, ppid;

	printf("chain: ");
	for (depth = 0; pid > 1 && depth < 64; depth++) {
		proc_read(pid, "comm", comm, sizeof(comm));
		proc_read(pid, "stat", stat, sizeof(stat));
		end = strrchr(stat, ')');
		if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
			die("stat");
		printf("%s%s(%d)", depth ? " <- " : "", comm, pid);
		pid = ppid;
	}
	printf("\n");
	fflush(stdout);
}

static void marker(void)
{
	if (syscall(SYS_write, 1021, (void *)on_signal, 0) != -1 || errno != EBADF)
		die("write 1021");
}

int main(void)
{
	struct rlimit rl = { 37, 100 };
	sigset_t set;
	pid_t child;
	int status;

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit");
	catch(SIGUSR1, SA_SIGINFO | SA_RESTART, SIGINT, SIGTERM);
	if (signal(SIGUSR2, SIG_IGN) == SIG_ERR)
		die("signal");
	catch(SIGALRM, SA_ONSTACK | SA_NODEFER | SA_RESETHAND, 0, 0);
	catch(40, 0, 64, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, 50);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		die("sigprocmask");

	print_chain();
	marker();
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_NAME, "sigstate-child", 0, 0, 0);
		print_chain();
		marker();
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("waitpid");
	printf("sigstate: pid %d child %d\n", (int)getpid(), (int)child);
	return 0;
}
