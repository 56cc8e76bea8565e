/*
 * net_loopback [-w] N - a known conversation over the loopback device (which must be
 * up), for the tests of the tcp.*, udp.*, socket.* and netdev.* probes (N at most 1000;
 * the tests use 1000):
 *
 *   TCP: a listener on 127.0.0.1:40001; a client bound to 127.0.0.1:40002 connects to it
 *        and sets TCP_NODELAY; the client sends N bytes, the accepted socket receives
 *        them (one recv of N, MSG_WAITALL) and answers N/5 bytes with write(), which
 *        the client takes with read() (the loopback device delivers them at once);
 *        then the client disconnects (connect to AF_UNSPEC, which resets the
 *        connection) and the client, accepted and listening sockets are closed in
 *        that order.
 *   UDP: sockets on 127.0.0.1:40003 and 127.0.0.1:40004, each connected to the other;
 *        the first sends a 333-byte datagram, the second receives it (recv of 1000
 *        bytes); the first asks the device's MTU (ioctl SIOCGIFMTU on "lo"), then
 *        disconnects (connect to AF_UNSPEC); both are closed, first then second.
 *
 * Every socket is created with its protocol named (IPPROTO_TCP, IPPROTO_UDP).  Prints
 * "net_loopback: tcp N/(N/5) udp 333 mtu M" when all went as planned.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "workload.h"

#define USAGE "[-w] N"

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "net_loopback: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int bound(int type, int proto, int port)
{
	struct sockaddr_in a = loopback(port);
	int one = 1;
	int fd = socket(AF_INET, type, proto);

	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		die("SO_REUSEADDR");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
	return fd;
}

static void connect_to(int fd, int port)
{
	struct sockaddr_in a = loopback(port);

	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
}

static void disconnect(int fd)
{
	struct sockaddr a;

	memset(&a, 0, sizeof(a));
	a.sa_family = AF_UNSPEC;
	if (connect(fd, &a, sizeof(a)) < 0)
		die("disconnect");
}

static void send_all(int fd, const char *buf, size_t n)
{
	ssize_t sent = send(fd, buf, n, 0);

	if (sent != (ssize_t)n)
		die("send");
}

static ssize_t receive(int fd, char *buf, size_t n, int flags)
{
	ssize_t got = recv(fd, buf, n, flags);

	if (got < 0)
		die("recv");
	return got;
}

int main(int argc, char **argv)
{
	static char buf[1000];
	struct ifreq ifr;
	ssize_t tcp1, tcp2, udp;
	int first, one = 1;
	int s, c, a, u1, u2;
	long n;

	workload_options(argc, argv, &first, 1, USAGE);
	n = workload_count(argv[first], USAGE);
	if (n > (long)sizeof(buf))
		workload_usage(USAGE);
	memset(buf, 'x', sizeof(buf));

	s = bound(SOCK_STREAM, IPPROTO_TCP, 40001);
	if (listen(s, 1) < 0)
		die("listen");
	c = bound(SOCK_STREAM, IPPROTO_TCP, 40002);
	connect_to(c, 40001);
	a = accept(s, NULL, NULL);
	if (a < 0)
		die("accept");
	if (setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		die("TCP_NODELAY");
	send_all(c, buf, n);
	tcp1 = receive(a, buf, n, MSG_WAITALL);
	if (write(a, buf, n / 5) != n / 5)
		die("write");
	tcp2 = read(c, buf, n / 5);
	if (tcp2 < 0)
		die("read");
	disconnect(c);
	close(c);
	close(a);
	close(s);

	u1 = bound(SOCK_DGRAM, IPPROTO_UDP, 40003);
	u2 = bound(SOCK_DGRAM, IPPROTO_UDP, 40004);
	connect_to(u1, 40004);
	connect_to(u2, 40003);
	send_all(u1, buf, 333);
	udp = receive(u2, buf, sizeof(buf), 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(u1, SIOCGIFMTU, &ifr) < 0)
		die("SIOCGIFMTU");
	disconnect(u1);
	close(u1);
	close(u2);

	printf("net_loopback: tcp %zd/%zd udp %zd mtu %d\n", tcp1, tcp2, udp, ifr.ifr_mtu);
	return 0;
}
