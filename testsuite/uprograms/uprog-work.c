/*
 * uprog-work.c - uprog's semaphore-guarded SDT marker uprog:work.  In a file of its own:
 * once _SDT_HAS_SEMAPHORES is defined, <sys/sdt.h> gives every marker of the file a
 * semaphore, and uprog:start and uprog:tick (uprog.c) have none.
 *
 * While a probe is attached to uprog:work, the kernel's uprobes keep uprog_work_semaphore
 * (in the .probes section) above 0; do_work fires the marker only then, and returns 1 so
 * that main counts the rounds that saw it set.  Three sizes of arguments: a char
 * 'a'+i-1, a short -1000*i (negative), a long long (i << 32) + i (above 32 bits).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short uprog_work_semaphore __attribute__((unused)) __attribute__((section(".probes")));

int do_work(int i)
{
	if (uprog_work_semaphore) {
		STAP_PROBE3(uprog, work, (char)('a' + i - 1), (short)(-1000 * i),
			    ((long long)i << 32) + i);
		return 1;
	}
	return 0;
}
