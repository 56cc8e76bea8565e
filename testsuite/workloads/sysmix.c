/*
 * sysmix [-w] N - a known mix of system calls, each made through syscall(2) so the C
 * library can neither add nor replace one:
 *
 *   openat(AT_FDCWD, "/tmp/sysmix.data", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640)
 *   write(fd, "0123456789", 10)  close(fd)
 *   openat(AT_FDCWD, "/tmp/sysmix.data", O_RDONLY)
 *   read(fd, buf, 4) = 4  read(fd, buf, 100) = 6  read(fd, buf, 100) = 0  close(fd)
 *   openat(AT_FDCWD, "/nonexistent/sysmix", O_RDONLY|O_DIRECTORY) = -ENOENT
 *   unlinkat(AT_FDCWD, "/tmp/sysmix.data", 0)
 *   N times getppid()
 *
 * and then prints
 *   sysmix: N getppid calls, 10 bytes in and out
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "workload.h"

#define USAGE "[-w] N"
#define FILE_PATH "/tmp/sysmix.data"

static long call_or_die(long ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "sysmix: %s: %s\n", what, strerror(errno));
		exit(1);
	}
	return ret;
}

int main(int argc, char **argv)
{
	static char buf[100];
	long n, i, fd, in = 0;
	int first;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);

	fd = call_or_die(syscall(SYS_openat, AT_FDCWD, FILE_PATH,
				 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640), "create");
	call_or_die(syscall(SYS_write, fd, "0123456789", 10), "write");
	call_or_die(syscall(SYS_close, fd), "close");

	fd = call_or_die(syscall(SYS_openat, AT_FDCWD, FILE_PATH, O_RDONLY), "open");
	in += call_or_die(syscall(SYS_read, fd, buf, 4), "read");
	in += call_or_die(syscall(SYS_read, fd, buf, sizeof(buf)), "read");
	in += call_or_die(syscall(SYS_read, fd, buf, sizeof(buf)), "read");
	call_or_die(syscall(SYS_close, fd), "close");

	if (syscall(SYS_openat, AT_FDCWD, "/nonexistent/sysmix", O_RDONLY | O_DIRECTORY) >= 0) {
		fprintf(stderr, "sysmix: /nonexistent/sysmix exists\n");
		return 1;
	}
	call_or_die(syscall(SYS_unlinkat, AT_FDCWD, FILE_PATH, 0), "unlink");

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("sysmix: %ld getppid calls, %ld bytes in and out\n", n, in);
	return 0;
}
