/*
 * A socket bound to the IPv4 broadcast address, as Samba's NetBIOS servers
 * (nmbd, samba's nbtd) bind UDP 127.255.255.255:137 beside the address of
 * their interface. Each case runs on a real kernel socket first (loopback,
 * a port the kernel picks), then on emulated ones (default interface 30):
 * the bind succeeds and getsockname() names the broadcast address; every
 * datagram sent to the broadcast address on that port reaches it, from
 * the sender's address; a datagram to an interface address does not; what
 * it sends comes from an address of the interface (the kernel's 127.0.0.1,
 * our default interface), IP_PKTINFO says the same. Where we differ: the
 * socket bound to an interface address on that port gets its copy of the
 * broadcast too (the kernel gives it none; upstream and our contract do).
 * A TCP socket binds and listens there, and nobody can connect to it
 * (ENETUNREACH), as in the kernel. Also: the name on disk (UFF<port>) beside
 * the interface's socket, a socket passed with SCM_RIGHTS, the 10.53.57.0
 * network.
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("30");
	close(socket(AF_INET, SOCK_STREAM, 0)); /* the wrapper reads it */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("SOCKET_WRAPPER_IPV4_NETWORK");
	swrap_test_teardown(dir);
	return 0;
}

static int sock(bool real, int type)
{
	int fd = real ? swrap_test_real_socket(AF_INET, type, 0)
		      : socket(AF_INET, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(swrap_test_is_unix(fd), !real);
	return fd;
}

static int bind_to(int fd, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);

	return bind(fd, (struct sockaddr *)&ss, len);
}

static int port_of(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	return ntohs(sin.sin_port);
}

static void send_to(int fd, const char *what, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);

	assert_int_equal(
	    sendto(fd, what, strlen(what), 0, (struct sockaddr *)&ss, len),
	    (ssize_t)strlen(what));
}

/* wait_ms for what should come: as long as it takes, up to
 * cwrap_test_wait_ms() (a loaded machine may be slow) */
#define COMES (-1)

/* The next datagram on fd, "" if none comes within wait_ms; *from (64
 * bytes) its sender as swrap_test_ntop() writes it. */
static const char *recv_one(int fd, int wait_ms, char *buf, char *from)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	ssize_t r;

	buf[0] = '\0';
	from[0] = '\0';
	if (wait_ms == COMES) {
		wait_ms = cwrap_test_wait_ms();
	}
	if (poll(&p, 1, wait_ms) != 1) {
		return buf;
	}
	r = recvfrom(fd, buf, 63, 0, (struct sockaddr *)&ss, &len);
	assert_true(r >= 0);
	buf[r] = '\0';
	swrap_test_ntop(&ss, from);
	return buf;
}

/* B answers C: from an address of the interface (the kernel's
 * 127.0.0.1, our default interface), on B's port. */
static void reply_and_check(bool real, int b, int c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[64], from[64], want[64];

	assert_int_equal(getsockname(c, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(sendto(b, "reply", 5, 0, (struct sockaddr *)&ss, len),
			 5);
	assert_string_equal(recv_one(c, COMES, buf, from), "reply");
	print_message("reply from %s\n", from);
	snprintf(want, sizeof(want), "%s:%d", real ? "127.0.0.1" : "127.0.0.30",
		 port_of(b));
	assert_string_equal(from, want);
}

static void test_udp_bind_broadcast(void **state)
{
	(void)state;
	for (int real = 1; real >= 0; real--) {
		const char *bcast = "127.255.255.255";
		const char *iface = real ? "127.0.0.1" : "127.0.0.10";
		const char *client = real ? "127.0.0.1" : "127.0.0.11";
		int b = sock(real, SOCK_DGRAM), u = sock(real, SOCK_DGRAM);
		int c = sock(real, SOCK_DGRAM), on = 1, port;
		char buf[64], from[64], want[64], name[64];

		print_message("%s sockets\n", real ? "kernel" : "emulated");
		/* The kernel picks the port (137 needs privilege there). */
		assert_int_equal(bind_to(b, bcast, real ? 0 : 137), 0);
		port = port_of(b);
		snprintf(want, sizeof(want), "%s:%d", bcast, port);
		assert_string_equal(swrap_test_name(b, name, false), want);
		assert_int_equal(bind_to(u, iface, port), 0);
		assert_int_equal(bind_to(c, client, 0), 0);
		assert_int_equal(
		    setsockopt(c, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)),
		    0);
		swrap_test_name(c, name, false);

		/* To the broadcast address: B gets it, from C. */
		send_to(c, "to-all", bcast, port);
		assert_string_equal(recv_one(b, COMES, buf, from), "to-all");
		assert_string_equal(from, name);
		/* U: the kernel gives it no copy, the emulation does. */
		assert_string_equal(recv_one(u, real ? 200 : COMES, buf, from),
				    real ? "" : "to-all");

		/* To the interface address: U only. */
		send_to(c, "to-one", iface, port);
		assert_string_equal(recv_one(u, COMES, buf, from), "to-one");
		assert_string_equal(recv_one(b, 200, buf, from), "");

		/* B answers from an address of the interface. */
		reply_and_check(real, b, c);
		/* With SO_BROADCAST, B's own broadcast reaches B too, from
		 * that address. */
		assert_int_equal(
		    setsockopt(b, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)),
		    0);
		send_to(b, "self", bcast, port);
		assert_string_equal(recv_one(b, COMES, buf, from), "self");
		snprintf(want, sizeof(want), "%s:%d",
			 real ? "127.0.0.1" : "127.0.0.30", port);
		assert_string_equal(from, want);
		if (!real) {
			assert_string_equal(recv_one(u, COMES, buf, from),
					    "self");
		}
		close(b);
		close(u);
		close(c);
	}
}

/* IP_PKTINFO on the broadcast socket: the destination is the broadcast
 * address, the local address the interface's. */
static void test_broadcast_pktinfo(void **state)
{
	(void)state;
	for (int real = 1; real >= 0; real--) {
		int b = sock(real, SOCK_DGRAM), c = sock(real, SOCK_DGRAM);
		int on = 1, port;
		char buf[16], ctl[256], addr[INET_ADDRSTRLEN],
		    spec[INET_ADDRSTRLEN];
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = ctl,
				   .msg_controllen = sizeof(ctl)};
		struct cmsghdr *cm;
		bool seen = false;

		assert_int_equal(bind_to(b, "127.255.255.255", 0), 0);
		port = port_of(b);
		assert_int_equal(
		    setsockopt(b, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)), 0);
		assert_int_equal(
		    setsockopt(c, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)),
		    0);
		send_to(c, "x", "127.255.255.255", port);
		assert_int_equal(recvmsg(b, &m, 0), 1);
		for (cm = CMSG_FIRSTHDR(&m); cm != NULL;
		     cm = CMSG_NXTHDR(&m, cm)) {
			struct in_pktinfo pi;

			if (cm->cmsg_level != IPPROTO_IP ||
			    cm->cmsg_type != IP_PKTINFO) {
				continue;
			}
			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			inet_ntop(AF_INET, &pi.ipi_addr, addr, sizeof(addr));
			inet_ntop(AF_INET, &pi.ipi_spec_dst, spec,
				  sizeof(spec));
			print_message("%s: to %s, local %s\n",
				      real ? "kernel" : "emulated", addr, spec);
			assert_string_equal(addr, "127.255.255.255");
			assert_string_equal(spec,
					    real ? "127.0.0.1" : "127.0.0.30");
			seen = true;
		}
		assert_true(seen);
		close(b);
		close(c);
	}
}

/* TCP: the kernel binds the broadcast address too and listens there;
 * nobody can connect to it. */
static void test_tcp_bind_broadcast(void **state)
{
	(void)state;
	for (int real = 1; real >= 0; real--) {
		int t = sock(real, SOCK_STREAM), c = sock(real, SOCK_STREAM);
		char name[64], want[64];
		int port;

		assert_int_equal(bind_to(t, "127.255.255.255", real ? 0 : 139),
				 0);
		port = port_of(t);
		snprintf(want, sizeof(want), "127.255.255.255:%d", port);
		assert_string_equal(swrap_test_name(t, name, false), want);
		assert_int_equal(listen(t, 4), 0);
		{
			struct sockaddr_storage ss;
			socklen_t len =
			    swrap_test_sa("127.255.255.255", port, &ss);

			assert_int_equal(
			    connect(c, (struct sockaddr *)&ss, len), -1);
			assert_int_equal(errno, ENETUNREACH);
		}
		close(t);
		close(c);
	}
}

/* What Samba's nbtd does: 127.255.255.255:137 and the interface's own
 * 127.0.0.30:137 (the default interface), both with SO_REUSEADDR; each
 * has its name on disk, the broadcast one interface FF. A second socket
 * on the broadcast address and port is refused, as by the kernel. */
static void test_names_beside_interface(void **state)
{
	int b = socket(AF_INET, SOCK_DGRAM, 0),
	    u = socket(AF_INET, SOCK_DGRAM, 0);
	int b2 = socket(AF_INET, SOCK_DGRAM, 0), on = 1;

	(void)state;
	assert_int_equal(
	    setsockopt(b, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)), 0);
	assert_int_equal(
	    setsockopt(u, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)), 0);
	assert_int_equal(bind_to(b, "127.255.255.255", 137), 0);
	assert_int_equal(bind_to(u, "127.0.0.30", 137), 0);
	assert_true(swrap_test_has_socket(dir, "UFF0089"));
	assert_true(swrap_test_has_socket(dir, "U1E0089"));
	assert_int_equal(bind_to(b2, "127.255.255.255", 137), -1);
	assert_int_equal(errno, EADDRINUSE);
	close(b2);
	close(b);
	close(u);
	assert_false(swrap_test_has_socket(dir, "UFF0089"));
}

/* Passed to another descriptor with SCM_RIGHTS (adopted from its name on
 * disk), the socket still names the broadcast address. */
static void test_passed_broadcast_socket(void **state)
{
	int b = socket(AF_INET, SOCK_DGRAM, 0), sp[2], got = -1;
	char name[64], byte = 'x';
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};

	(void)state;
	assert_int_equal(bind_to(b, "127.255.255.255", 138), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &b, sizeof(int));
	assert_int_equal(sendmsg(sp[0], &m, 0), 1);
	m.msg_controllen = sizeof(u.buf);
	assert_int_equal(recvmsg(sp[1], &m, 0), 1);
	memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	assert_true(got >= 0 && got != b);
	assert_string_equal(swrap_test_name(got, name, false),
			    "127.255.255.255:138");
	close(got);
	close(sp[0]);
	close(sp[1]);
	close(b);
}

/* SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0: the broadcast address is
 * 10.255.255.255. */
static void test_broadcast_other_network(void **state)
{
	int b, u, c, on = 1;
	char buf[64], from[64], name[64];

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_IPV4_NETWORK", "10.53.57.0", 1),
			 0);
	b = socket(AF_INET, SOCK_DGRAM, 0);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	c = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(bind_to(b, "127.255.255.255", 137), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_int_equal(bind_to(b, "10.255.255.255", 137), 0);
	assert_string_equal(swrap_test_name(b, name, false),
			    "10.255.255.255:137");
	assert_int_equal(bind_to(u, "10.53.57.30", 137), 0);
	assert_int_equal(
	    setsockopt(c, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)), 0);
	assert_int_equal(bind_to(c, "10.53.57.11", 1234), 0);
	send_to(c, "nb", "10.255.255.255", 137);
	assert_string_equal(recv_one(b, COMES, buf, from), "nb");
	assert_string_equal(from, "10.53.57.11:1234");
	assert_string_equal(recv_one(u, COMES, buf, from), "nb");
	send_to(b, "back", "10.53.57.11", 1234);
	assert_string_equal(recv_one(c, COMES, buf, from), "back");
	assert_string_equal(from, "10.53.57.30:137");
	close(b);
	close(u);
	close(c);
	unsetenv("SOCKET_WRAPPER_IPV4_NETWORK");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_udp_bind_broadcast),
	    cmocka_unit_test(test_broadcast_pktinfo),
	    cmocka_unit_test(test_tcp_bind_broadcast),
	    cmocka_unit_test(test_names_beside_interface),
	    cmocka_unit_test(test_passed_broadcast_socket),
	    cmocka_unit_test(test_broadcast_other_network),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
