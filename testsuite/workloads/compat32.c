/*
 * compat32 - the 32-bit system calls stap 4.8 probes through syscall.compat_* aliases
 * (their 32-bit time or structures, or their 64-bit offsets in two registers), each made
 * directly (syscall()) so that glibc's choice of the time64 calls does not interfere, each
 * harmless: a file that is not there, a bad descriptor, a zero timeout, a read.
 *
 *   nanosleep({0, 1000}), clock_nanosleep(CLOCK_MONOTONIC, 0, {0, 1000})
 *   getitimer(ITIMER_VIRTUAL), setitimer(ITIMER_VIRTUAL, {0, 0, 0, 0})
 *   select(0, ..., {0, 0}), ppoll(NULL, 0, {0, 1000}), pselect6(0, ..., {0, 1000})
 *   readahead(fd, 0x100000005, 4096), fadvise64(fd, 0x100000007, 100, SEQUENTIAL)
 *   fallocate(fd, KEEP_SIZE, 0x100000008, 16) on a read-only descriptor  EBADF
 *   futex(&word, FUTEX_WAKE, 1)
 *   utime, utimes, futimesat, utimensat of /nonexistent-compat32  ENOENT
 *   recvmmsg(-1, ...), vmsplice(-1, ...)  EBADF
 *   execve and execveat of /nonexistent-compat32  ENOENT
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MISSING "/nonexistent-compat32"

int main(void)
{
	int ts[2] = { 0, 1000 }, zero[2] = { 0, 0 }, itv[4] = { 0, 0, 0, 0 }, old[4];
	int times[2] = { 5, 6 }, tv[4] = { 1, 2, 3, 4 }, tsp[4] = { 7, 8, 9, 10 };
	int word = 0, fd = open("/bin/compat32", O_RDONLY);
	char *argv[] = { "compat32-child", "arg", NULL }, *envp[] = { "X=1", NULL };

	syscall(SYS_nanosleep, ts, NULL);
	syscall(SYS_clock_nanosleep, 1 /* CLOCK_MONOTONIC */, 0, ts, NULL);
	syscall(SYS_getitimer, 1 /* ITIMER_VIRTUAL */, old);
	syscall(SYS_setitimer, 1, itv, NULL);
	syscall(SYS__newselect, 0, NULL, NULL, NULL, zero);
	syscall(SYS_ppoll, NULL, 0, ts, NULL, 8);
	syscall(SYS_pselect6, 0, NULL, NULL, NULL, ts, NULL);
	syscall(SYS_readahead, fd, 5, 1, 4096);
	syscall(SYS_fadvise64, fd, 7, 1, 100, 2 /* POSIX_FADV_SEQUENTIAL */);
	syscall(SYS_fallocate, fd, 1 /* FALLOC_FL_KEEP_SIZE */, 8, 1, 16, 0);
	syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0);
	syscall(SYS_utime, MISSING, times);
	syscall(SYS_utimes, MISSING, tv);
	syscall(SYS_futimesat, AT_FDCWD, MISSING, tv);
	syscall(SYS_utimensat, AT_FDCWD, MISSING, tsp, 0);
	syscall(SYS_recvmmsg, -1, NULL, 0, 0, zero);
	syscall(SYS_vmsplice, -1, NULL, 0, 0);
	syscall(SYS_execve, MISSING, argv, envp);
	syscall(SYS_execveat, AT_FDCWD, MISSING, argv, envp, 0);
	close(fd);
	return 0;
}
