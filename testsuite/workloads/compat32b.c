/*
 * compat32b - more 32-bit system calls stap 4.8 probes through aliases of their own
 * (compat32.c has the first twenty): the System V IPC and socket message calls, directly
 * and through the ipc() and socketcall() multiplexers; sigaction, rt_sigaction,
 * settimeofday, ustat, signalfd and signalfd4 (their 32-bit structures); pread64, pwrite64,
 * truncate64, ftruncate64, fadvise64_64 and lookup_dcookie (64-bit values in two
 * registers).  Each made directly (syscall()), each harmless: an identifier or descriptor
 * that is not there, a file that is not there, an invalid time, SIGUSR1/SIGUSR2 set to be
 * ignored.
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MISSING "/nonexistent-compat32b"

/* linux/ipc.h and linux/net.h's multiplexed call numbers */
#define IPC_SEMTIMEDOP 4
#define IPC_MSGSND 11
#define IPC_MSGCTL 14
#define SOCKETCALL_SENDMSG 16
#define SOCKETCALL_RECVMSG 17

int main(void)
{
	/* the 32-bit layouts: old_sigaction, compat_sigaction, old_timeval32 */
	unsigned int old_act[4] = { 1 /* SIG_IGN */, 0, 0, 0 };
	unsigned int rt_act[5] = { 1 /* SIG_IGN */, 0, 0, 0x4, 0 };
	int bad_tv[2] = { 1, 2000000 }, ts[2] = { 0, 1000 };
	unsigned int mask[2] = { 0x400, 0 };
	unsigned int socket_args[3] = { (unsigned int)-1, 0, 0 };
	char buf[16] = "compat32b", ubuf[32];
	unsigned short sops[3] = { 0, 1, 0 };
	int fd = open("/bin/compat32b", O_RDONLY);

	syscall(SYS_sigaction, SIGUSR1, old_act, NULL);
	syscall(SYS_rt_sigaction, SIGUSR2, rt_act, NULL, 8);
	syscall(SYS_settimeofday, bad_tv, NULL);
	syscall(SYS_ustat, 0, ubuf);
	syscall(SYS_signalfd, fd, mask, 8);
	syscall(SYS_signalfd4, fd, mask, 8, 0);
	syscall(SYS_pread64, fd, buf, 4, 3, 1);
	syscall(SYS_pwrite64, -1, buf, 4, 5, 1);
	syscall(SYS_truncate64, MISSING, 6, 1);
	syscall(SYS_ftruncate64, -1, 7, 1);
	syscall(SYS_fadvise64_64, fd, 8, 1, 100, 0, 2 /* POSIX_FADV_SEQUENTIAL */);
	syscall(SYS_lookup_dcookie, 9, 1, ubuf, sizeof(ubuf));
	syscall(SYS_sendmsg, -1, NULL, 0);
	syscall(SYS_recvmsg, -1, NULL, 0);
	syscall(SYS_socketcall, SOCKETCALL_SENDMSG, socket_args);
	syscall(SYS_socketcall, SOCKETCALL_RECVMSG, socket_args);
	syscall(SYS_semctl, -1, 0, 2 /* IPC_STAT */, 0);
	syscall(SYS_shmctl, -1, 2 /* IPC_STAT */, NULL);
	syscall(SYS_shmat, -1, NULL, 0);
	syscall(SYS_msgsnd, -1, buf, 4, 0);
	syscall(SYS_msgrcv, -1, buf, 4, 0, 0);
	syscall(SYS_msgctl, -1, 2 /* IPC_STAT */, NULL);
	syscall(SYS_ipc, IPC_SEMTIMEDOP, -1, 1, 0, sops, ts);
	syscall(SYS_ipc, IPC_MSGSND, -1, 4, 0, buf, 0);
	syscall(SYS_ipc, IPC_MSGCTL, -1, 2, 0, NULL, 0);
	close(fd);
	return 0;
}
