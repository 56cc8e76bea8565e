/*
 * dentries - reads files whose paths are known, for the tests of the dentry tapset
 * (d_name, task_dentry_path, fullpath_struct_file, ...).  The job first creates
 * /tmp/dentry_test/a/b.txt and mounts a tmpfs on /tmp/dentry_test/m that holds c/d.txt
 * (/tmp is a tmpfs mount too).  In this order the program reads one byte (one read(2),
 * one vfs_read()) from:
 *
 *   1. /tmp/dentry_test/a/b.txt;
 *   2. /tmp/dentry_test/m/c/d.txt, on the other mount;
 *   3. /tmp/dentry_test/gone.txt, which it creates and unlinks before the read;
 *   4. /tmp/dentry_test/deep/level00_abcdefghijkl/.../level29_abcdefghijkl/f.txt, which it
 *      creates: 30 directories of 20 characters, a path longer than a string (512 bytes);
 *   5. /a/b.txt after chroot("/tmp/dentry_test") and chdir("/");
 *   6. /, the new root: a directory, whose read fails with EISDIR;
 *
 * then prints "dentries: done".  Nothing else in the program opens or reads a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "dentries: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One read of a byte from FD, which must succeed or fail with EXPECT_ERRNO. */
static void read_one(int fd, const char *what, int expect_errno)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	if (expect_errno ? (n != -1 || errno != expect_errno) : n != 1)
		die(what);
}

static void read_path(const char *path, int expect_errno)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	read_one(fd, path, expect_errno);
	close(fd);
}

int main(void)
{
	char name[32];
	int fd, i;

	read_path("/tmp/dentry_test/a/b.txt", 0);
	read_path("/tmp/dentry_test/m/c/d.txt", 0);

	fd = open("/tmp/dentry_test/gone.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "gone\n", 5) != 5 || unlink("/tmp/dentry_test/gone.txt") != 0 ||
	    lseek(fd, 0, SEEK_SET) != 0)
		die("gone.txt");
	read_one(fd, "gone.txt", 0);
	close(fd);

	if (mkdir("/tmp/dentry_test/deep", 0755) != 0 || chdir("/tmp/dentry_test/deep") != 0)
		die("deep");
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "level%02d_abcdefghijkl", i);
		if (mkdir(name, 0755) != 0 || chdir(name) != 0)
			die(name);
	}
	fd = open("f.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "f\n", 2) != 2 || lseek(fd, 0, SEEK_SET) != 0)
		die("f.txt");
	read_one(fd, "f.txt", 0);
	close(fd);

	if (chroot("/tmp/dentry_test") != 0 || chdir("/") != 0)
		die("chroot");
	read_path("/a/b.txt", 0);
	read_path("/", EISDIR);
	printf("dentries: done\n");
	return 0;
}
