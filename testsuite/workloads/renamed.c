/*
 * renamed - system calls whose syscall.* alias in stap 4.8 has fewer variables, or other
 * names, than their arguments give (the generator's alias_renames), each made through
 * syscall(2), refused or harmless, its descriptors closed:
 *
 *   flock(-1, LOCK_EX|LOCK_NB)                             EBADF
 *   getpriority(PRIO_PROCESS, 0), getrlimit(RLIMIT_NOFILE, &r), getitimer(ITIMER_REAL, &v)
 *   keyctl(KEYCTL_GET_KEYRING_ID, -99, 0)                  EINVAL
 *   keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0), and each operation below
 *   on the key -99 (none): UPDATE, REVOKE, CHOWN, SETPERM, DESCRIBE (NULL buffer),
 *   SEARCH, SET_TIMEOUT, REJECT, INSTANTIATE_IOV, GET_PERSISTENT; SET_REQKEY_KEYRING
 *   (KEY_REQKEY_DEFL_NO_CHANGE: nothing changed); an operation 99 there is not  EINVAL...
 *   membarrier(MEMBARRIER_CMD_QUERY, 0, 0)
 *   symlink("/nonexistent/renamed", "/nonexistent/renamed2")  ENOENT
 *   mkdirat(AT_FDCWD, "/nonexistent/renamed", 0750)        ENOENT
 *   tee(-1, -1, 100, SPLICE_F_NONBLOCK)                     EBADF
 *   execve("/nonexistent/renamed", {"renamed", "a"}, {"X=1"})  ENOENT
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	long r[2], v[4];
	char *argv[] = { "renamed", "a", NULL }, *envp[] = { "X=1", NULL };

	syscall(SYS_flock, -1, 2 | 4 /* LOCK_EX|LOCK_NB */);
	syscall(SYS_getpriority, 0 /* PRIO_PROCESS */, 0);
	syscall(SYS_getrlimit, 7 /* RLIMIT_NOFILE */, r);
	syscall(SYS_getitimer, 0 /* ITIMER_REAL */, v);
	syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -99, 0, 0, 0);
	syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0, 0, 0);
	syscall(SYS_keyctl, 2 /* KEYCTL_UPDATE */, -99, "payload", 7, 0);
	syscall(SYS_keyctl, 3 /* KEYCTL_REVOKE */, -99, 0, 0, 0);
	syscall(SYS_keyctl, 4 /* KEYCTL_CHOWN */, -99, 0, 0, 0);
	syscall(SYS_keyctl, 5 /* KEYCTL_SETPERM */, -99, 0x3f010000, 0, 0);
	syscall(SYS_keyctl, 6 /* KEYCTL_DESCRIBE */, -99, NULL, 0, 0);
	syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -99, "user", "renamed", 0);
	syscall(SYS_keyctl, 14 /* KEYCTL_SET_REQKEY_KEYRING */, -1 /* NO_CHANGE */, 0, 0, 0);
	syscall(SYS_keyctl, 15 /* KEYCTL_SET_TIMEOUT */, -99, 10, 0, 0);
	syscall(SYS_keyctl, 19 /* KEYCTL_REJECT */, -99, 10, 5, 0);
	syscall(SYS_keyctl, 20 /* KEYCTL_INSTANTIATE_IOV */, -99, NULL, 0, 0);
	syscall(SYS_keyctl, 22 /* KEYCTL_GET_PERSISTENT */, -1, -99, 0, 0);
	syscall(SYS_keyctl, 99, 1, 2, 3, 4);
	syscall(SYS_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0);
	syscall(SYS_symlink, "/nonexistent/renamed", "/nonexistent/renamed2");
	syscall(SYS_mkdirat, AT_FDCWD, "/nonexistent/renamed", 0750);
	syscall(SYS_tee, -1, -1, 100, 2 /* SPLICE_F_NONBLOCK */);
	syscall(SYS_execve, "/nonexistent/renamed", argv, envp);
	return 0;
}
