/*
 * tasks ARG... - a process whose task_struct, command line, environment, file table and
 * memory are known, for the tests of the task_*, cmdline_*, env_var, proc_mem_* and
 * user_* tapset functions.  In this order it:
 *
 *   - sets its nice value to 5, its group ids to 100 (real and saved) and 200
 *     (effective), its user ids to 300 (real and saved) and 400 (effective);
 *   - goes to /tmp, closes every descriptor from 3 on, opens /proc/version as 7 and
 *     duplicates it as 9 (so 0, 1, 2, 7 and 9 are open: 0-2 on /dev/null if they were
 *     not);
 *   - maps 1 MiB of anonymous memory and writes to each page, then spends about 200 ms
 *     of CPU time in user mode;
 *   - reads /proc/self/statm, calls getppid() (the probes' marker in the parent), and
 *     prints "statm SIZE RESIDENT SHARED TEXT DATA" from what it read;
 *   - calls write(1023, UBUF, 32) (EBADF: no such descriptor) where UBUF holds the bytes
 *     fe ff ff ff ff ff ff ff 85 00 00 80 "hello world" 00 ..., for the user_* readers,
 *     and write(1022, WBUF, 32) with WBUF 32 dots, which a guru-mode probe may change,
 *     then prints "wbuf [WBUF]" (a byte that is not printable as _);
 *   - forks a child that names itself tasks-child, adds 3 to its nice value, sleeps
 *     100 ms, calls getppid() and exits 0, while the parent waits for it (asleep in
 *     wait4);
 *   - prints "tasks: pid PID child CHILD".
 */
#define _GNU_SOURCE	/* setresuid */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const unsigned char ubuf[32] = {
	0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x85, 0x00, 0x00, 0x80,
	'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', 0,
};
static char wbuf[32] = "................................";

/* (not workload.h: the arguments here are any, for the command-line tests) */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "tasks: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	char statm[256];
	unsigned long size, resident, shared, text, lib, data;
	long long until;
	volatile unsigned long spin = 0;
	char *mem;
	pid_t child;
	int fd, status;
	ssize_t n;

	(void)argc;
	(void)argv;
	if (setpriority(PRIO_PROCESS, 0, 5) != 0)
		die("setpriority");
	if (setresgid(100, 200, 100) != 0)
		die("setresgid");
	if (setresuid(300, 400, 300) != 0)
		die("setresuid");
	if (chdir("/tmp") != 0)
		die("chdir");
	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			die("open /dev/null");
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	fd = open("/proc/version", O_RDONLY);
	if (fd < 0 || dup2(fd, 7) != 7 || dup2(7, 9) != 9)
		die("open /proc/version");
	if (fd != 7 && fd != 9)
		close(fd);

	mem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	for (n = 0; n < 1 << 20; n += 4096)
		mem[n] = 1;
	until = now_ns() + 200000000LL;
	while (now_ns() < until)
		for (int i = 0; i < 100000; i++)
			spin++;

	fd = open("/proc/self/statm", O_RDONLY);
	if (fd < 0)
		die("open /proc/self/statm");
	n = read(fd, statm, sizeof(statm) - 1);
	close(fd);
	if (n <= 0)
		die("read /proc/self/statm");
	statm[n] = '\0';
	syscall(SYS_getppid);
	if (sscanf(statm, "%lu %lu %lu %lu %lu %lu", &size, &resident, &shared, &text, &lib,
		   &data) != 6)
		die("statm");
	printf("statm %lu %lu %lu %lu %lu\n", size, resident, shared, text, data);

	if (syscall(SYS_write, 1023, ubuf, sizeof(ubuf)) != -1 || errno != EBADF)
		die("write 1023");
	if (syscall(SYS_write, 1022, wbuf, sizeof(wbuf)) != -1 || errno != EBADF)
		die("write 1022");
	printf("wbuf [");
	for (n = 0; n < (ssize_t)sizeof(wbuf); n++)
		putchar(wbuf[n] >= ' ' && wbuf[n] <= '~' ? wbuf[n] : '_');
	printf("]\n");
	fflush(stdout);

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_NAME, "tasks-child", 0, 0, 0);
		struct timespec pause = { 0, 100000000 };

		if (setpriority(PRIO_PROCESS, 0, 8) != 0)
			die("setpriority");
		nanosleep(&pause, NULL);	/* the parent is asleep in wait4 by then */
		syscall(SYS_getppid);
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("waitpid");
	printf("tasks: pid %d child %d\n", (int)getpid(), (int)child);
	return 0;
}
