/*
 * kprocess_spawn - a fork, two execs, signals and an exit with known values, for the
 * tests of the kprocess.*, signal.* and scheduler.* probes.
 *
 * The parent makes a pipe and forks.  The child first tries to execve
 * /nonexistent/kprocess_spawn (ENOENT), then execs /bin/kprocess_spawn with the arguments
 * "child" and the pipe's write end, and the environment "KPROCESS=1" alone.  As the
 * child, the program then, in this order:
 *
 *   - sets a handler for SIGUSR1 with sigaction(2) (sa_mask SIGHUP, so sa_mask is 1);
 *   - blocks SIGUSR2 with sigprocmask(SIG_BLOCK) (the set 0x800);
 *   - sends itself SIGUSR2 with tgkill(2), then again with tkill(2) (blocked: it stays
 *     pending, once);
 *   - calls sigpending(2) (which shows SIGUSR2);
 *   - makes a POSIX timer (timer_create(2), CLOCK_MONOTONIC) that sends SIGWINCH (which
 *     it ignores), arms it to expire once after 1 ms, and sleeps 20 ms;
 *   - spends 30 ms of CPU time in user mode (several scheduler ticks);
 *   - writes one byte to the pipe and waits in pause(2) until its handler has run;
 *   - exits with status 3.
 *
 * The parent waits for the byte, then until /proc/CHILD/stat shows the child asleep (in
 * pause), sends it SIGUSR1 with kill(2), waits for it with wait4(2), sleeps 100 ms, and
 * prints
 *   kprocess_spawn: parent PID child PID status 0xSTATUS
 * (status 0x300: exited with 3).  The calls go through syscall(2) where the test looks at
 * them, so each is the one system call named.
 *
 * kprocess_spawn segv: a process whose handler for SIGUSR1 must run on an alternate
 * signal stack it cannot write (sigaltstack(2) on a PROT_NONE mapping) sends itself
 * SIGUSR1 with kill(2): the kernel cannot set up the handler's frame and kills it with
 * SIGSEGV instead.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled = 1;
}

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "kprocess_spawn: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* True once the process PID sleeps (state S in /proc/PID/stat). */
static int asleep(pid_t pid)
{
	char path[64], line[512], *end;
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		die("open /proc/PID/stat");
	if (fgets(line, sizeof(line), f) && (end = strrchr(line, ')')))
		yes = end[1] == ' ' && end[2] == 'S';
	fclose(f);
	return yes;
}

static int segv(void)
{
	struct sigaction sa;
	stack_t ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_size = 65536;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) < 0)
		die("sigaltstack");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die("sigaction");
	syscall(SYS_kill, getpid(), SIGUSR1);
	fprintf(stderr, "kprocess_spawn: the handler ran\n");
	return 1;
}

static int child(const char *fd_arg)
{
	struct sigevent sev;
	struct itimerspec its;
	struct timespec pause_ts = { 0, 20000000 };
	int timer;
	long long start;
	struct sigaction sa;
	sigset_t set, pending;
	int fd = atoi(fd_arg);
	pid_t me = getpid();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGHUP);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die("sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8) < 0)
		die("sigprocmask");
	if (syscall(SYS_tgkill, me, me, SIGUSR2) < 0 || syscall(SYS_tkill, me, SIGUSR2) < 0)
		die("tgkill/tkill");
	if (syscall(SYS_rt_sigpending, &pending, 8) < 0 || !sigismember(&pending, SIGUSR2))
		die("sigpending");
	signal(SIGWINCH, SIG_IGN);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGWINCH;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1000000;
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &timer) < 0 ||
	    syscall(SYS_timer_settime, timer, 0, &its, NULL) < 0)
		die("timer_create/timer_settime");
	nanosleep(&pause_ts, NULL);
	start = cpu_ns();
	while (cpu_ns() - start < 30000000)
		;
	if (write(fd, "r", 1) != 1)
		die("write to the pipe");
	while (!handled)
		pause();
	exit(3);
}

int main(int argc, char **argv)
{
	char fd_arg[16], ready;
	int p[2], status;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "segv"))
		return segv();
	if (argc != 1) {
		fprintf(stderr, "usage: kprocess_spawn [segv]\n");
		return 2;
	}
	if (pipe(p) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *args[] = { "kprocess_spawn", "child", fd_arg, NULL };
		char *env[] = { "KPROCESS=1", NULL };

		close(p[0]);
		snprintf(fd_arg, sizeof(fd_arg), "%d", p[1]);
		syscall(SYS_execve, "/nonexistent/kprocess_spawn", args, env);
		syscall(SYS_execve, "/bin/kprocess_spawn", args, env);
		die("execve /bin/kprocess_spawn");
	}
	close(p[1]);
	if (read(p[0], &ready, 1) != 1)
		die("read from the pipe");
	while (!asleep(pid))
		usleep(1000);
	if (syscall(SYS_kill, pid, SIGUSR1) < 0)
		die("kill");
	if (syscall(SYS_wait4, pid, &status, 0, NULL) != pid)
		die("wait4");
	usleep(100000);
	printf("kprocess_spawn: parent %d child %d status %#x\n", getpid(), pid, status);
	return 0;
}
