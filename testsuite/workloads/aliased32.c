/*
 * aliased32 - the system calls only a 32-bit program makes (ia32 entry points) whose
 * syscall.* aliases decode their arguments, each harmless:
 *
 *   signal(SIGUSR2, SIG_IGN), signal(SIGUSR2, SIG_DFL)
 *   SIGUSR1 blocked, handled and raised, then sigpending(&set), and sigsuspend(0, 0,
 *     {SIGUSR2}) (SIGUSR1 unblocked: it returns at once, EINTR)
 *   get_thread_area({99}), set_thread_area({99, 0x1000, 0xfffff, 0x51})  EINVAL
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

int main(void)
{
	struct { unsigned int entry, base, limit, flags; } desc = { 99, 0x1000, 0xfffff, 0x51 };
	unsigned long set = 0;
	sigset_t usr1;

	syscall(SYS_signal, SIGUSR2, SIG_IGN);
	syscall(SYS_signal, SIGUSR2, SIG_DFL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	raise(SIGUSR1);
	syscall(SYS_sigpending, &set);
	syscall(SYS_sigsuspend, 0, 0, 1UL << (SIGUSR2 - 1));
	syscall(SYS_get_thread_area, &desc);
	syscall(SYS_set_thread_area, &desc);
	return 0;
}
