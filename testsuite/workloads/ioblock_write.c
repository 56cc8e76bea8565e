/*
 * ioblock_write [DEV] - writes one page of 'x' at byte 8192 (sector 16) of the block
 * device DEV (default /dev/nullb0) through its page cache, then fsync()s it: one write of
 * 4096 bytes reaches the device, from this process.  Prints "ioblock_write: done".
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/nullb0";
	static char page[4096];
	int fd;

	memset(page, 'x', sizeof(page));
	fd = open(dev, O_WRONLY);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (pwrite(fd, page, sizeof(page), 8192) != sizeof(page) || fsync(fd)) {
		perror(dev);
		return 1;
	}
	close(fd);
	printf("ioblock_write: done\n");
	return 0;
}
