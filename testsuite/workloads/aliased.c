/*
 * aliased - system calls whose syscall.* alias covers more than one kernel call (pipe and
 * pipe2, dup2 and dup3, eventfd and eventfd2, ...) or whose variables stap's tapset
 * decodes beyond the arguments, each made through syscall(2), refused or harmless (a bad
 * descriptor, a missing path, a bad length), its descriptors closed:
 *
 *   pipe(fds), pipe2(fds, O_CLOEXEC|O_NONBLOCK)           fds first {-1, -1}
 *   dup2(-1, 99), dup3(-1, 99, O_CLOEXEC)                   EBADF
 *   eventfd(5), eventfd2(6, EFD_CLOEXEC|EFD_NONBLOCK)
 *   epoll_create(3), epoll_create1(EPOLL_CLOEXEC)
 *   inotify_init(), inotify_init1(IN_NONBLOCK)
 *   signalfd(-1, {SIGUSR1}, 8), signalfd4(-1, {SIGUSR2}, 8, SFD_CLOEXEC)
 *   mknod("/nonexistent/aliased", S_IFIFO|0640, 0)         ENOENT
 *   mknodat(AT_FDCWD, "/nonexistent/aliased", S_IFCHR|0600, makedev(1, 3))  ENOENT
 *   shmctl(-1, IPC_STAT, NULL), shmctl(-1, IPC_RMID, NULL)  EINVAL
 *   socketpair(AF_UNIX, SOCK_STREAM, 0, fds), socketpair(AF_INET, SOCK_DGRAM, IPPROTO_UDP)
 *   move_pages(0, 0, NULL, NULL, NULL, MPOL_MF_MOVE)
 *   memfd_secret(O_CLOEXEC)                                 (ENOSYS where not enabled)
 *   get_thread_area({99}), set_thread_area({99, 0x1000, 0xfffff, 0x51})  EINVAL
 *   utime("/nonexistent/aliased", {333, 444})               ENOENT
 *   ppoll(NULL, 0, {0, 1000}, {SIGUSR1}, 8), pselect6(0, NULL, NULL, NULL, {0, 1000}, NULL)
 *   preadv(-1, iov, 2, 0x100000002), pwritev, preadv2 and pwritev2 (RWF_HIPRI)  EBADF
 *   pivot_root("/nonexistent/new", "/nonexistent/old")      ENOENT
 *   sethostname("guest", -1), setdomainname("domain", -1)   EINVAL
 *   name_to_handle_at(AT_FDCWD, "/nonexistent/aliased", h, &id, AT_SYMLINK_FOLLOW)  ENOENT
 *   add_key("nonexistent_type", "desc", "payload", 7, KEY_SPEC_PROCESS_KEYRING)  ENODEV
 *   request_key("nonexistent_type", "desc", "callout", 0)  ENODEV
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static void close_pair(long rc, const int *fds)
{
	if (rc == 0) {
		syscall(SYS_close, fds[0]);
		syscall(SYS_close, fds[1]);
	}
}

static void close_fd(long fd)
{
	if (fd >= 0)
		syscall(SYS_close, fd);
}

int main(void)
{
	static const char missing[] = "/nonexistent/aliased";
	unsigned long usr1 = 1UL << (SIGUSR1 - 1), usr2 = 1UL << (SIGUSR2 - 1);
	struct { unsigned int entry, base, limit, flags; } desc = { 99, 0x1000, 0xfffff, 0x51 };
	struct { long actime, modtime; } ub = { 333, 444 };
	struct timespec nap = { 0, 1000 };
	char data[8] = "abcdefg", handle[136] = { 0 };
	struct iovec iov[2] = { { data, 3 }, { data, 5 } };
	int fds[2] = { -1, -1 }, mount_id;

	*(unsigned int *)handle = 128;	/* handle_bytes */
	close_pair(syscall(SYS_pipe, fds), fds);
	close_pair(syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK), fds);
	syscall(SYS_dup2, -1, 99);
	syscall(SYS_dup3, -1, 99, O_CLOEXEC);
	close_fd(syscall(SYS_eventfd, 5));
	close_fd(syscall(SYS_eventfd2, 6, O_CLOEXEC | O_NONBLOCK));
	close_fd(syscall(SYS_epoll_create, 3));
	close_fd(syscall(SYS_epoll_create1, O_CLOEXEC));
	close_fd(syscall(SYS_inotify_init));
	close_fd(syscall(SYS_inotify_init1, O_NONBLOCK));
	close_fd(syscall(SYS_signalfd, -1, &usr1, 8));
	close_fd(syscall(SYS_signalfd4, -1, &usr2, 8, O_CLOEXEC));
	syscall(SYS_mknod, missing, S_IFIFO | 0640, 0);
	syscall(SYS_mknodat, AT_FDCWD, missing, S_IFCHR | 0600, makedev(1, 3));
	syscall(SYS_shmctl, -1, 2 /* IPC_STAT */, NULL);
	syscall(SYS_shmctl, -1, 0 /* IPC_RMID */, NULL);
	close_pair(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, fds), fds);
	close_pair(syscall(SYS_socketpair, AF_INET, SOCK_DGRAM, IPPROTO_UDP, fds), fds);
	syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 2 /* MPOL_MF_MOVE */);
	close_fd(syscall(447 /* memfd_secret */, O_CLOEXEC));
	syscall(SYS_get_thread_area, &desc);
	syscall(SYS_set_thread_area, &desc);
	syscall(SYS_utime, missing, &ub);
	syscall(SYS_ppoll, NULL, 0, &nap, &usr1, 8);
	syscall(SYS_pselect6, 0, NULL, NULL, NULL, &nap, NULL);
	syscall(SYS_preadv, -1, iov, 2, 2, 1);
	syscall(SYS_pwritev, -1, iov, 2, 2, 1);
	syscall(SYS_preadv2, -1, iov, 2, 2, 1, 1 /* RWF_HIPRI */);
	syscall(SYS_pwritev2, -1, iov, 2, 2, 1, 1);
	syscall(SYS_pivot_root, "/nonexistent/new", "/nonexistent/old");
	syscall(SYS_sethostname, "guest", -1);
	syscall(SYS_setdomainname, "domain", -1);
	syscall(SYS_name_to_handle_at, AT_FDCWD, missing, handle, &mount_id, 0x400);
	syscall(SYS_add_key, "nonexistent_type", "desc", "payload", 7, -2);
	syscall(SYS_request_key, "nonexistent_type", "desc", "callout", 0);
	return 0;
}
