/*
 * structs - system calls whose arguments point at structs of known contents, each made
 * through syscall(2) and each refused or harmless (a bad descriptor, path, timer, signal
 * or size), so the guest's clock, signals and files stay as they were:
 *
 *   settimeofday({1, 2000000}, {-60, 1})             EINVAL (tv_usec too big)
 *   utime("/nonexistent/structs", {111, 222})         ENOENT
 *   utimes("/nonexistent/structs", {{1, 2}, {3, 4}})  ENOENT
 *   utimensat(AT_FDCWD, "/nonexistent/structs", {{5, 6}, {7, UTIME_OMIT}}, 0)  ENOENT
 *   nanosleep({0, 1000}, NULL)
 *   times(buf), sysinfo(buf), adjtimex(buf): buf filled with 1, 2, 3, ... first
 *     (adjtimex's modes 0: it only reads)
 *   timer_settime(-1, 0, {{1, 2}, {3, 4}}, NULL)      EINVAL
 *   rt_sigprocmask(99, {SIGINT, SIGUSR1, SIGRTMIN+1}, NULL, 8)  EINVAL
 *   rt_sigaction(99, {SIG_IGN, ...}, NULL, 8)         EINVAL, and again with the fields of
 *     a 32-bit struct sigaction {0x8048000, SA_RESTORER|SA_SIGINFO, 0x8049000, SIGTERM}
 *   sigaltstack({0x1000, SS_DISABLE|1, 4096}, NULL)   EINVAL
 *   rt_sigqueueinfo(0x7ffffff0, SIG, {SIG, 0, CODE, ...})  ESRCH, for SIGUSR1 and SI_QUEUE,
 *     SIGCHLD and CLD_EXITED, SIGTERM and SI_TKILL
 *   set_thread_area({99, 0x1000, 0xfffff, flags})     EINVAL
 *   sched_setattr(0, {size 8, ...}, 0)                E2BIG or EINVAL
 *   setxattr("/nonexistent/structs", "user.x", VALUE, SIZE, 0)  ENOENT, for "ab\0c\1d" (6),
 *     quote, backslash, tab, newline, DEL and 0xff (6), and 300 x's
 *   connect(-1, 127.0.0.1:80), connect(-1, [::1]:443 flowinfo 7 scope 2)  EBADF, each
 *     with its size, then with 4 and 2
 *   writev(-1, {{buf, 3}, {buf, 5}}, 2)               EBADF
 *   quotactl(Q_SETQUOTA and Q_SETINFO of USRQUOTA, "/nonexistent/structs", 0, BUF)
 *     ENOENT, BUF filled with 1, 2, 3, ...
 *   pipe2(fds, 0) then close of both
 *   with the timespec {5, 6}, the timeval {1, 2}, the rlimit {1, 2}, the itimerspec
 *   {{1, 2}, {3, 4}}, the signal set above and BUF filled: clock_settime(CLOCK_MONOTONIC)
 *   EINVAL, clock_adjtime(99) EINVAL, fsetxattr(-1, "user.x", "ab", 2, 0) EBADF,
 *   lsetxattr("/nonexistent/structs", "user.x", "cd\0", 3, 0) ENOENT, rt_sigsuspend and
 *   rt_sigtimedwait with sigsetsize 4 EINVAL, rt_tgsigqueueinfo(0x7ffffff0, 0x7ffffff0,
 *   SIGUSR1) ESRCH, sched_getattr(0, BUF, 8, 0) EINVAL, setrlimit(999) EINVAL,
 *   timerfd_settime(-1) EBADF, select(-1) EINVAL, recvmmsg(-1) EBADF, semtimedop(-1, NULL,
 *   0) EINVAL, io_getevents(0) EINVAL, splice(-1, NULL, -1, NULL, 5, SPLICE_F_MOVE) and
 *   copy_file_range(-1, NULL, -1, NULL, 7, 0) EBADF
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/quota.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void fill(void *buf, size_t bytes)
{
	long *words = buf;

	for (size_t i = 0; i < bytes / sizeof(long); i++)
		words[i] = i + 1;
}

int main(void)
{
	static const char missing[] = "/nonexistent/structs";
	struct { long sec, usec; } tv[2] = { { 1, 2000000 } }, tvs[2] = { { 1, 2 }, { 3, 4 } };
	struct { int minuteswest, dsttime; } tz = { -60, 1 };
	struct { long actime, modtime; } ub = { 111, 222 };
	struct { unsigned long cur, max; } rl = { 1, 2 };
	struct timespec ts[2] = { { 5, 6 }, { 7, UTIME_OMIT } }, nap = { 0, 1000 };
	struct { struct timespec interval, value; } its = { { 1, 2 }, { 3, 4 } };
	long buf[64];
	unsigned long set = (1UL << (SIGINT - 1)) | (1UL << (SIGUSR1 - 1)) |
			    (1UL << (SIGRTMIN + 1 - 1));
	struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } act = {
		SIG_IGN, 0x04000000, NULL, 1UL << (SIGTERM - 1)
	};
	unsigned int act32[8] = { 0x8048000, 0x04000004, 0x8049000, 1U << (SIGTERM - 1) };
	struct { void *sp; int flags; size_t size; } ss = { (void *)0x1000, SS_DISABLE | 1, 4096 };
	siginfo_t info = { 0 };
	struct { unsigned int entry, base, limit, flags; } desc = { 99, 0x1000, 0xfffff, 0x51 };
	struct { unsigned int size, policy; unsigned long flags; int nice; unsigned int prio;
		 unsigned long runtime, deadline, period; } attr = { 8, 0, 0, 5, 0, 1, 2, 3 };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(443),
				     .sin6_flowinfo = htonl(7), .sin6_addr = IN6ADDR_LOOPBACK_INIT,
				     .sin6_scope_id = 2 };
	char data[16] = "abcdefgh", big[300];
	struct iovec iov[2] = { { data, 3 }, { data, 5 } };
	int fds[2];

	syscall(SYS_settimeofday, tv, &tz);
	syscall(SYS_utime, missing, &ub);
	syscall(SYS_utimes, missing, tvs);
	syscall(SYS_utimensat, AT_FDCWD, missing, ts, 0);
	syscall(SYS_nanosleep, &nap, NULL);
	fill(buf, sizeof(buf));
	syscall(SYS_times, buf);
	fill(buf, sizeof(buf));
	syscall(SYS_sysinfo, buf);
	fill(buf, sizeof(buf));
	buf[0] = 0;		/* modes (and the padding after it): read only */
	syscall(SYS_adjtimex, buf);
	syscall(SYS_timer_settime, -1, 0, &its, NULL);
	syscall(SYS_rt_sigprocmask, 99, &set, NULL, 8);
	syscall(SYS_rt_sigaction, 99, &act, NULL, 8);
	syscall(SYS_rt_sigaction, 99, act32, NULL, 8);
	syscall(SYS_sigaltstack, &ss, NULL);
	for (int i = 0; i < 3; i++) {
		static const int sigs[] = { SIGUSR1, SIGCHLD, SIGTERM }, codes[] = { -1, 1, -6 };

		info.si_signo = sigs[i];
		info.si_code = codes[i];
		syscall(SYS_rt_sigqueueinfo, 0x7ffffff0, sigs[i], &info);
	}
	syscall(SYS_set_thread_area, &desc);
	syscall(SYS_sched_setattr, 0, &attr, 0);
	syscall(SYS_setxattr, missing, "user.x", "ab\0c\1d", 6, 0);
	syscall(SYS_setxattr, missing, "user.x", "\"\\\t\n\x7f\xff", 6, 0);
	memset(big, 'x', sizeof(big));
	syscall(SYS_setxattr, missing, "user.x", big, sizeof(big), 0);
	for (int i = 0; i < 3; i++) {
		static const int sizes[] = { 0, 4, 2 };

		syscall(SYS_connect, -1, &sin, sizes[i] ? sizes[i] : (int)sizeof(sin));
		syscall(SYS_connect, -1, &sin6, sizes[i] ? sizes[i] : (int)sizeof(sin6));
	}
	syscall(SYS_writev, -1, iov, 2);
	fill(buf, sizeof(buf));
	syscall(SYS_quotactl, QCMD(Q_SETQUOTA, USRQUOTA), missing, 0, buf);
	syscall(SYS_quotactl, QCMD(Q_SETINFO, USRQUOTA), missing, 0, buf);
	if (syscall(SYS_pipe2, fds, 0) == 0) {
		syscall(SYS_close, fds[0]);
		syscall(SYS_close, fds[1]);
	}
	fill(buf, sizeof(buf));
	buf[0] = 0;		/* clock_adjtime's modes: read only */
	syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts[0]);
	syscall(SYS_clock_adjtime, 99, buf);
	syscall(SYS_fsetxattr, -1, "user.x", "ab", 2, 0);
	syscall(SYS_lsetxattr, missing, "user.x", "cd", 3, 0);
	syscall(SYS_rt_sigsuspend, &set, 4);
	syscall(SYS_rt_sigtimedwait, &set, &info, &ts[0], 4);
	info.si_signo = SIGUSR1;
	info.si_code = -1;
	syscall(SYS_rt_tgsigqueueinfo, 0x7ffffff0, 0x7ffffff0, SIGUSR1, &info);
	syscall(SYS_sched_getattr, 0, buf, 8, 0);
	syscall(SYS_setrlimit, 999, &rl);
	syscall(SYS_timerfd_settime, -1, 0, &its, NULL);
	syscall(SYS_select, -1, NULL, NULL, NULL, tvs);
	syscall(SYS_recvmmsg, -1, NULL, 0, 0, &ts[0]);
	syscall(SYS_semtimedop, -1, NULL, 0, &ts[0]);
	syscall(SYS_io_getevents, 0, 0, 0, NULL, &ts[0]);
	syscall(SYS_splice, -1, NULL, -1, NULL, 5, 1);
	syscall(SYS_copy_file_range, -1, NULL, -1, NULL, 7, 0);
	return 0;
}
