/*
 * sockaddrs - system calls whose arguments the syscall tapset shows decoded from the
 * caller's memory, each made once with known values:
 *
 *   socket() of PF_INET, PF_INET6, PF_LOCAL, PF_NETLINK, a raw ICMP and a packet socket;
 *   bind() and connect() with IPv4 (127.0.0.1:5555, and 8 bytes of one), IPv6 ([::1]:5556,
 *   flow information 7), file and abstract AF_UNIX addresses (one cut short) and a
 *   netlink one; sendto() with and without an address;
 *   prlimit64() with new limits, without, and with RLIM_INFINITY;
 *   setitimer() with {1 s 500 us, 2 s 600 us} then zeros; getrandom() into a buffer
 *   that holds "abc".
 *
 * The calls' results do not matter (a bind may fail); it prints "sockaddrs: done".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void sockets(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(5555) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(5556),
				    .sin6_flowinfo = htonl(7) };
	struct sockaddr_un un = { .sun_family = AF_UNIX }, ab = { .sun_family = AF_UNIX };
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_groups = 5 };
	int s, c, x, u, k;

	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	s = socket(AF_INET, SOCK_STREAM, 0);
	bind(s, (struct sockaddr *)&in, sizeof(in));
	listen(s, 1);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&in, sizeof(in));
	x = socket(AF_INET6, SOCK_STREAM, 0);
	bind(x, (struct sockaddr *)&in6, sizeof(in6));
	strcpy(un.sun_path, "/tmp/sockaddrs.sock");
	unlink(un.sun_path);
	u = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(u, (struct sockaddr *)&un, sizeof(un));
	u = socket(AF_UNIX, SOCK_DGRAM, 0);
	connect(u, (struct sockaddr *)&un, sizeof(sa_family_t) + 5);
	k = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	bind(k, (struct sockaddr *)&nl, sizeof(nl));
	memcpy(ab.sun_path, "\0abstract", 9);
	k = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(k, (struct sockaddr *)&ab, sizeof(sa_family_t) + 9);
	in.sin_port = htons(80);
	connect(k, (struct sockaddr *)&in, 8);
	socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	socket(AF_PACKET, SOCK_DGRAM, 0);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	in.sin_port = htons(5557);
	sendto(u, "hello", 5, MSG_DONTWAIT, (struct sockaddr *)&in, sizeof(in));
	sendto(u, "hi\n\001", 4, 0, NULL, 0);
}

int main(void)
{
	struct rlimit limits = { 1000, 2000 }, old;
	struct itimerval timer = { { 1, 500 }, { 2, 600 } }, zero = { { 0, 0 }, { 0, 0 } };
	char buf[16] = "abc";

	sockets();
	prlimit(0, RLIMIT_NOFILE, &limits, &old);
	prlimit(0, RLIMIT_CORE, NULL, &old);
	limits.rlim_cur = RLIM_INFINITY;
	prlimit(0, RLIMIT_CPU, &limits, NULL);
	setitimer(ITIMER_REAL, &timer, NULL);
	setitimer(ITIMER_REAL, &zero, NULL);
	if (getrandom(buf, 4, GRND_NONBLOCK) < 0)
		perror("getrandom");
	printf("sockaddrs: done\n");
	return 0;
}
