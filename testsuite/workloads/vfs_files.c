/*
 * vfs_files DIR - known reads and writes of a file it makes, DIR/vfs_data, for the tests
 * of the vfs.* probes.  In this order it:
 *
 *   - opens DIR/vfs_data to write (created, truncated, mode 0644), writes 100 bytes with
 *     write(2), then 20 + 30 bytes with one writev(2), and closes it (150 bytes);
 *   - opens it again to read, reads with read(2) asking for 4096 bytes (150 come), then
 *     again (0: the end), goes back to the start and reads 64 + 64 bytes with one
 *     readv(2) (128 come), and closes it;
 *   - opens DIR itself and read(2)s it asking for 10 bytes, which fails with EISDIR;
 *   - prints "vfs_files: ino INO dev MAJOR:MINOR" of DIR/vfs_data as stat(2) gives them.
 *
 * The calls go through syscall(2), and a static program's start-up reads and writes no
 * file, so every vfs_read/vfs_write/vfs_readv/vfs_writev of this process is one of those.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define USAGE "DIR"

static void __attribute__((noreturn)) die(const char *what, const char *path)
{
	fprintf(stderr, "vfs_files: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	static char data[150], buf[4096], a[64], b[64];
	struct iovec wv[2] = { { data + 100, 20 }, { data + 120, 30 } };
	struct iovec rv[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	char path[4096];
	struct stat st;
	long got;
	int first, fd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: vfs_files " USAGE "\n");
		return 2;
	}
	first = 1;
	snprintf(path, sizeof(path), "%s/vfs_data", argv[first]);
	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = 'a' + i % 26;

	fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("cannot create", path);
	if (syscall(SYS_write, fd, data, 100) != 100 || syscall(SYS_writev, fd, wv, 2) != 50)
		die("cannot write", path);
	syscall(SYS_close, fd);

	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	if (fd < 0)
		die("cannot open", path);
	if (syscall(SYS_read, fd, buf, sizeof(buf)) != 150 ||
	    syscall(SYS_read, fd, buf, sizeof(buf)) != 0)
		die("cannot read", path);
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	if (syscall(SYS_readv, fd, rv, 2) != 128)
		die("cannot readv", path);
	syscall(SYS_close, fd);

	fd = syscall(SYS_openat, AT_FDCWD, argv[first], O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("cannot open", argv[first]);
	got = syscall(SYS_read, fd, buf, 10);
	if (got != -1 || errno != EISDIR)
		die("read of a directory did not fail with EISDIR:", argv[first]);
	syscall(SYS_close, fd);

	if (stat(path, &st) < 0)
		die("cannot stat", path);
	printf("vfs_files: ino %lu dev %u:%u\n", (unsigned long)st.st_ino, major(st.st_dev),
	       minor(st.st_dev));
	return 0;
}
