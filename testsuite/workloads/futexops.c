/*
 * futexops - futex() with each operation once, on words of its own (a wait whose value
 * differs returns EAGAIN at once, a PI lock of an unowned word is taken and given back),
 * for the argstr of syscall.futex; futexops32 is its 32-bit build (the time32 futex).
 *
 * It prints nothing, so that its output does not mix with a session's.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>

static uint32_t word, word2, pi;

static long fx(int op, uint32_t val, unsigned long t, uint32_t *u2, uint32_t val3)
{
	return syscall(SYS_futex, &word, op, val, t, u2, val3);
}

int main(void)
{
	long ts[2] = { 0, 1000 };	/* a timespec of 1 us, in either ABI's layout */

	fx(FUTEX_WAKE, 1, 0, NULL, 0);
	fx(FUTEX_WAKE_PRIVATE, 2, 0, NULL, 0);
	fx(FUTEX_WAIT, 7, (unsigned long)ts, NULL, 0);
	fx(FUTEX_WAIT_PRIVATE, 7, 0, NULL, 0);
	fx(FUTEX_WAIT_BITSET, 7, (unsigned long)ts, NULL, 0xffffffff);
	fx(FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 7, 0, NULL, 5);
	fx(FUTEX_WAKE_BITSET, 1, 0, NULL, 0xff);
	fx(FUTEX_REQUEUE, 1, 2, &word2, 0);
	fx(FUTEX_CMP_REQUEUE, 1, 3, &word2, 0);
	fx(FUTEX_CMP_REQUEUE, 1, 3, &word2, 9);
	fx(FUTEX_WAKE_OP, 1, 1, &word2, FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
	syscall(SYS_futex, &pi, FUTEX_LOCK_PI, 0, ts, NULL, 0);
	syscall(SYS_futex, &pi, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	fx(FUTEX_WAIT_REQUEUE_PI, 7, (unsigned long)ts, &pi, 0);
	fx(FUTEX_CMP_REQUEUE_PI, 1, 0, &pi, 0);
	fx(FUTEX_FD, 1, 0, NULL, 0);
	fx(99, 1, 2, &word2, 4);
	return 0;
}
