/*
 * swrap_quic_relay LISTEN-ADDR PORT UPSTREAM-ADDR UPSTREAM-PORT: a server
 * on an emulated IPPROTO_QUIC socket (socket_wrapper_ipproto_quic_socket),
 * as a kernel-style QUIC server has one, that hands each datagram of the
 * one connection it accepts to a UDP QUIC server (ngtcp2's) and its
 * answers back, so that a real QUIC client and server talk through it.
 * Prints "ready" once listening, then "client ADDR" for the connection
 * it accepted; ends when the client goes, or after 20 s without traffic.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "socket_wrapper.h"

static socklen_t sa_of(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		return sizeof(*s4);
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		return sizeof(*s6);
	}
	fprintf(stderr, "swrap_quic_relay: bad address '%s'\n", addr);
	exit(2);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ls, us, peer;
	socklen_t llen, ulen, plen = sizeof(peer);
	char name[INET6_ADDRSTRLEN], buf[65536];
	struct pollfd p[2];
	int l, c, u;

	if (argc != 5) {
		fprintf(stderr, "usage: swrap_quic_relay LISTEN-ADDR PORT "
				"UPSTREAM-ADDR UPSTREAM-PORT\n");
		return 2;
	}
	llen = sa_of(argv[1], atoi(argv[2]), &ls);
	ulen = sa_of(argv[3], atoi(argv[4]), &us);
	l = socket_wrapper_ipproto_quic_socket(ls.ss_family, SOCK_DGRAM);
	if (l < 0 || bind(l, (struct sockaddr *)&ls, llen) != 0 ||
	    listen(l, 4) != 0) {
		die("quic listener");
	}
	printf("ready\n");
	fflush(stdout);
	c = accept(l, (struct sockaddr *)&peer, &plen);
	if (c < 0) {
		die("accept");
	}
	inet_ntop(peer.ss_family,
		  peer.ss_family == AF_INET
		      ? (void *)&((struct sockaddr_in *)&peer)->sin_addr
		      : (void *)&((struct sockaddr_in6 *)&peer)->sin6_addr,
		  name, sizeof(name));
	printf("client %s\n", name);
	fflush(stdout);
	u = socket(us.ss_family, SOCK_DGRAM, 0);
	if (u < 0 || connect(u, (struct sockaddr *)&us, ulen) != 0) {
		die("upstream");
	}
	p[0].fd = c;
	p[1].fd = u;
	p[0].events = p[1].events = POLLIN;
	while (poll(p, 2, 20000) > 0) {
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].revents == 0) {
				continue;
			}
			n = recv(p[i].fd, buf, sizeof(buf), 0);
			if (n <= 0) {
				return 0; /* the client went */
			}
			if (send(p[1 - i].fd, buf, (size_t)n, 0) != n) {
				die("send");
			}
		}
	}
	return 0;
}
