/*
 * tty_pty.c - a known conversation over a pseudo-terminal, for the tty.* probes.
 *
 * Opens /dev/ptmx, unlocks and opens its slave, puts the slave in raw mode, sets its window
 * size to 24x80 (640x480 pixels), writes "ping\n" to the master and reads it on the slave
 * after a poll, writes "pong" to the slave and reads it on the master, then closes both.
 * Needs devpts mounted on /dev/pts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "tty_pty: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80, .ws_xpixel = 640, .ws_ypixel = 480 };
	struct pollfd pfd;
	struct termios t;
	char path[64], buf[64];
	int master, slave, n, unlock = 0;
	ssize_t got;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: tty_pty\n");
		return 2;
	}
	master = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (master < 0)
		die("open /dev/ptmx");
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0 || ioctl(master, TIOCGPTN, &n) < 0)
		die("unlock");
	snprintf(path, sizeof(path), "/dev/pts/%d", n);
	slave = open(path, O_RDWR | O_NOCTTY);
	if (slave < 0)
		die(path);
	if (tcgetattr(slave, &t) < 0)
		die("tcgetattr");
	cfmakeraw(&t);
	if (tcsetattr(slave, TCSANOW, &t) < 0)
		die("tcsetattr");
	if (ioctl(slave, TIOCSWINSZ, &ws) < 0)
		die("TIOCSWINSZ");

	if (write(master, "ping\n", 5) != 5)
		die("write master");
	pfd.fd = slave;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1)
		die("poll");
	got = read(slave, buf, sizeof(buf));
	if (got != 5 || memcmp(buf, "ping\n", 5))
		die("read slave");

	if (write(slave, "pong", 4) != 4)
		die("write slave");
	usleep(100000);
	got = read(master, buf, sizeof(buf));
	if (got != 4 || memcmp(buf, "pong", 4))
		die("read master");
	close(slave);
	close(master);
	printf("tty_pty: ping and pong over pts %d\n", n);
	return 0;
}
