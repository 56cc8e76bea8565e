/*
 * pretty - makes system calls that hand the kernel structs and strings whose every value
 * it chose, for the tests of pretty-printing ($var$, $var$$, $$parms$): once each, in
 * this order,
 *   rt_sigaction(SIGUSR1)   handler 0x1234, flags SA_RESTART, restorer 0x5678, mask {SIGUSR2}
 *   setrlimit(RLIMIT_NOFILE) {1234, 5678} (refused as above the hard limit or not: either
 *                           way do_prlimit sees it)
 *   bind(AF_UNIX datagram)  sa_data "q\n\"\\\001\177\377?\a" (escapes to print)
 *   open(PATH)              "/tmp/\001\n\"x\\z" (which does not exist)
 *   write(/dev/null)        "a\nb\"c\\d\001e\tf\177g\377h", then 600 'x', then 300 '\001'
 *                           (longer than stap's strings), then 0 bytes from NULL
 *   perf_event_open()       a software clock event: type 1, sample_period 100000, and the
 *                           bits disabled, exclude_kernel, precise_ip 2, comm_exec,
 *                           use_clockid (clockid 1), ksymbol
 * and prints "pretty: done".  A call may fail (it is what the kernel was given that the
 * tests print); nothing else in the program makes these calls.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sigaction on x86-64 (not libc's). */
struct kernel_sigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	unsigned long mask;
};

int main(void)
{
	static char text[] = "a\nb\"c\\d\001e\tf\177g\377h";
	static char big[600], ones[300];
	struct kernel_sigaction act = { 0x1234, 0x10000000 /* SA_RESTART */, 0x5678,
					1UL << (SIGUSR2 - 1) };
	struct rlimit limit = { 1234, 5678 };
	struct sockaddr sa;
	struct perf_event_attr attr;
	int fd, s;

	syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, sizeof(act.mask));
	setrlimit(RLIMIT_NOFILE, &limit);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_family = AF_UNIX;
	memcpy(sa.sa_data, "q\n\"\\\001\177\377?\a", 10);
	bind(s, &sa, sizeof(sa));
	close(s);
	open("/tmp/\001\n\"x\\z", O_RDONLY);
	fd = open("/dev/null", O_WRONLY);
	if (write(fd, text, sizeof(text) - 1) < 0)
		perror("write");
	memset(big, 'x', sizeof(big));
	memset(ones, 1, sizeof(ones));
	if (write(fd, big, sizeof(big)) < 0 || write(fd, ones, sizeof(ones)) < 0 ||
	    syscall(SYS_write, fd, NULL, 0) < 0)
		perror("write");
	close(fd);
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 100000;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.precise_ip = 2;
	attr.comm_exec = 1;
	attr.use_clockid = 1;
	attr.clockid = 1;
	attr.ksymbol = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	printf("pretty: done\n");
	return 0;
}
