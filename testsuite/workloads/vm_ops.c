/*
 * vm_ops - known work for the vm.* probe aliases, between two markers:
 *
 *   mmap    5 pages at 0x200000000 (MAP_FIXED, anonymous, private): the start marker
 *   write   a byte at 0x200002010              (a write fault)
 *   read    a byte at 0x200003008              (a read fault: the zero page is mapped)
 *   write   a byte at 0x200003008              (copy-on-write of the zero page)
 *   brk     the heap grown by 3 pages
 *   pipe    made and closed                    (the kernel kmallocs its buffers)
 *   munmap  the 5 pages at 0x200000000: the end marker
 *
 * and then prints "vm_ops: done".  Nothing else happens between the markers.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define BASE ((char *)0x200000000UL)
#define PAGE 4096

int main(void)
{
	volatile char *p;
	int fds[2];
	char *brk0;
	char c;

	p = mmap(BASE, 5 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != BASE)
		return 1;
	p[2 * PAGE + 0x10] = 1;
	c = p[3 * PAGE + 8];
	p[3 * PAGE + 8] = c + 1;
	brk0 = sbrk(0);
	if (brk(brk0 + 3 * PAGE))
		return 2;
	if (pipe(fds))
		return 3;
	close(fds[0]);
	close(fds[1]);
	if (munmap(BASE, 5 * PAGE))
		return 4;
	printf("vm_ops: done\n");
	return 0;
}
