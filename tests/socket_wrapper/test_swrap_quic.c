/*
 * socket_wrapper_ipproto_quic_socket(): emulated IPPROTO_QUIC sockets
 * (connected datagrams over AF_UNIX SOCK_SEQPACKET, named as UDP), and
 * SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK, which lets a plain UDP
 * client connect to one. Server and client on two interfaces, datagram
 * boundaries, names, options, dup/fork/SCM_RIGHTS, the capture read back
 * with libpcap. Run again without the wrapper (test_swrap_quic_noop): the
 * no-op library's function gives the kernel's answer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcap_reader.h"
#include "socket_wrapper.h"
#include "swrap_test.h"

#define QUIC 261
#define FALLBACK "SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK"

static int sockopt(int fd, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, name, &v, &len), 0);
	return v;
}

/* A QUIC socket of `type` on addr:port, listening. */
static int quic_listener(int type, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int fd = socket_wrapper_ipproto_quic_socket(ss.ss_family, type);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* connect() of `fd` to addr:port: 0, or -1 and errno. */
static int connect_to(int fd, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);

	return connect(fd, (struct sockaddr *)&ss, len);
}

/* A socket of `family`/`type` bound to addr, an automatic port. */
static void bind_any_port(int fd, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, 0, &ss);

	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
}

/* Three datagrams a -> b, each received whole and alone; b's recvmsg()
 * names a's address. */
/* A QUIC connection reaches the server's accept() with the client's
 * first packet, as a real one does (connect() sends nothing): before it
 * the listener has nothing to accept (Samba's quic_ko_wrapper reads that
 * packet as soon as accept() returns). The client sends "Initial"; the
 * connection accepted (its peer's name in *ss, if given), with the
 * packet read from it. */
static int accept_first(int l, int c, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct pollfd p = {.fd = l, .events = POLLIN};
	char b[16];
	int a;

	assert_int_equal(poll(&p, 1, 0), 0);
	assert_int_equal(send(c, "Initial", 7, 0), 7);
	a = accept(l, (struct sockaddr *)ss, len);
	assert_true(a >= 0);
	assert_int_equal(recv(a, b, sizeof(b), MSG_DONTWAIT), 7);
	assert_memory_equal(b, "Initial", 7);
	return a;
}

static void datagrams(int a, int b)
{
	static const size_t sizes[] = {1, 1200, 5};
	char buf[2048], want[2048], from[64], name[64];
	struct sockaddr_storage ss;
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_name = &ss, .msg_iov = &iov, .msg_iovlen = 1};

	for (size_t i = 0; i < 3; i++) {
		memset(want, 'a' + (int)i, sizes[i]);
		assert_int_equal(send(a, want, sizes[i], 0), (ssize_t)sizes[i]);
	}
	for (size_t i = 0; i < 3; i++) {
		memset(want, 'a' + (int)i, sizes[i]);
		m.msg_namelen = sizeof(ss);
		assert_int_equal(recvmsg(b, &m, 0), (ssize_t)sizes[i]);
		assert_memory_equal(buf, want, sizes[i]);
		assert_true(m.msg_namelen > 0);
		assert_string_equal(swrap_test_ntop(&ss, from),
				    swrap_test_name(a, name, false));
	}
}

static void check_quic_options(int fd, int family, int type)
{
	assert_int_equal(sockopt(fd, SO_PROTOCOL), QUIC);
	assert_int_equal(sockopt(fd, SO_TYPE), type);
	assert_int_equal(sockopt(fd, SO_DOMAIN), family);
}

/* TCP_INFO of `fd`: its state (and its tcpi_rto in *rto). */
static int tcp_info_of(int fd, unsigned *rto)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0xff, sizeof(ti));
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
	assert_int_equal(len, sizeof(ti));
	if (rto != NULL) {
		*rto = ti.tcpi_rto;
	}
	return ti.tcpi_state;
}

/* A connected QUIC socket answers the TCP level as an emulated TCP
 * socket does (upstream's answer, which smbd's oplock breaks over QUIC
 * need: TCP_INFO's retransmission timeout), and the SOL_SOCKET options
 * a server asks. */
static void check_tcp_level(int fd)
{
	int v = -1, one = 1;
	unsigned rto = 0;
	socklen_t len = sizeof(v);

	assert_int_equal(tcp_info_of(fd, &rto), TCP_ESTABLISHED);
	assert_int_equal(rto, 200000);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len),
			 0);
	assert_int_equal(v, 0);
	assert_int_equal(
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), 0);
	len = sizeof(v);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len),
			 0);
	assert_int_equal(v, 1);
	errno = 0;
	assert_int_equal(
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &v, sizeof(v) - 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(
	    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)), 0);
	assert_int_equal(sockopt(fd, SO_KEEPALIVE), 1);
	assert_true(sockopt(fd, SO_RCVBUF) > 0);
	assert_true(sockopt(fd, SO_SNDBUF) > 0);
	assert_int_equal(sockopt(fd, SO_ERROR), 0);
	assert_int_equal(sockopt(fd, SO_ACCEPTCONN), 0);
}

/* socket(..., 261) is refused as the kernel refuses it without its QUIC
 * module; only the function makes one, of the types it knows. */
static void test_quic_socket(void **state)
{
	char *dir = swrap_test_setup("10");
	int fd, real, e;

	(void)state;
	errno = 0;
	assert_int_equal(socket(AF_INET, SOCK_DGRAM, QUIC), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
	real = swrap_test_real_socket(AF_INET, SOCK_DGRAM, QUIC);
	e = errno;
	if (real >= 0) {
		close(real); /* (a kernel with the QUIC module loaded) */
	} else {
		assert_int_equal(e, EPROTONOSUPPORT);
	}
	fd = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	assert_true(fd >= 0);
	assert_true(swrap_test_is_unix(fd));
	check_quic_options(fd, AF_INET, SOCK_DGRAM);
	assert_int_equal(sockopt(fd, SO_ACCEPTCONN), 0);
	close(fd);
	fd = socket_wrapper_ipproto_quic_socket(AF_INET6,
						SOCK_STREAM | SOCK_NONBLOCK);
	assert_true(fd >= 0);
	check_quic_options(fd, AF_INET6, SOCK_STREAM);
	close(fd);
	/* Other types: socket(AF_INET, type, 261)'s errno */
	for (int i = 0; i < 2; i++) {
		int type = i == 0 ? SOCK_SEQPACKET : SOCK_DGRAM | 0x1000;

		errno = 0;
		assert_int_equal(
		    socket_wrapper_ipproto_quic_socket(AF_INET, type), -1);
		e = errno;
		assert_int_equal(e, i == 0 ? EPROTONOSUPPORT : EINVAL);
		errno = 0;
		assert_int_equal(socket(AF_INET, type, QUIC), -1);
		assert_int_equal(errno, e);
	}
	/* (a raw socket never: nothing leaves the emulation) */
	errno = 0;
	assert_int_equal(socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_RAW),
			 -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
	errno = 0;
	assert_int_equal(
	    socket_wrapper_ipproto_quic_socket(AF_UNIX, SOCK_DGRAM), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
	swrap_test_teardown(dir);
}

/* A server on interface 10, a client on interface 11, both ways; the
 * server's file is the UDP one; the accepted socket is QUIC too. */
static void server_client(int family, int type, const char *saddr,
			  const char *caddr, const char *file)
{
	char *dir = swrap_test_setup("10");
	char n1[64], n2[64];
	int l = quic_listener(type, saddr, 4433), c, a;

	int one = 1, u;
	unsigned rto;
	socklen_t len = sizeof(one);
	struct sockaddr_storage ss;
	socklen_t slen = swrap_test_sa(saddr, 4433, &ss);

	assert_true(swrap_test_has_socket(dir, file));
	assert_int_equal(sockopt(l, SO_ACCEPTCONN), 1);
	errno = 0;
	assert_int_equal(getsockopt(l, IPPROTO_UDP, UDP_CORK, &one, &len), -1);
	assert_int_equal(errno, ENOPROTOOPT);
	assert_int_equal(tcp_info_of(l, NULL), TCP_LISTEN);
	/* The UDP address is taken, for UDP and (no group) for QUIC. */
	u = socket(family, SOCK_DGRAM, 0);
	errno = 0;
	assert_int_equal(bind(u, (struct sockaddr *)&ss, slen), -1);
	assert_int_equal(errno, EADDRINUSE);
	close(u);
	u = socket_wrapper_ipproto_quic_socket(family, type);
	assert_int_equal(
	    setsockopt(u, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)), 0);
	errno = 0;
	assert_int_equal(bind(u, (struct sockaddr *)&ss, slen), -1);
	assert_int_equal(errno, EADDRINUSE);
	close(u);
	c = socket_wrapper_ipproto_quic_socket(family, type);
	assert_true(c >= 0);
	assert_int_equal(tcp_info_of(c, &rto), TCP_CLOSE);
	assert_int_equal(rto, 1000000);
	bind_any_port(c, caddr);
	assert_int_equal(connect_to(c, saddr, 4433), 0);
	a = accept_first(l, c, NULL, NULL);
	check_quic_options(a, family, type);
	check_tcp_level(c);
	check_tcp_level(a);
	assert_string_equal(swrap_test_name(a, n1, true),
			    swrap_test_name(c, n2, false));
	assert_string_equal(swrap_test_name(c, n1, true),
			    swrap_test_name(a, n2, false));
	assert_string_equal(swrap_test_name(c, n1, true),
			    swrap_test_name(l, n2, false));
	datagrams(c, a);
	datagrams(a, c);
	close(a);
	close(c);
	close(l);
	assert_false(swrap_test_has_socket(dir, file));
	swrap_test_teardown(dir);
}

static void test_server_client_v4(void **state)
{
	(void)state;
	server_client(AF_INET, SOCK_DGRAM, "127.0.0.10", "127.0.0.11",
		      "U0A1151");
}

static void test_server_client_v6(void **state)
{
	(void)state;
	server_client(AF_INET6, SOCK_STREAM, "fd00::5357:5f0a",
		      "fd00::5357:5f0b", "Y0A1151");
}

/* A client bound by connect() itself; a datagram larger than the buffer
 * is cut (MSG_TRUNC) and the next one stays whole; nobody listening:
 * ECONNREFUSED at the first send. */
static void test_autobind_trunc_refused(void **state)
{
	char *dir = swrap_test_setup("11");
	int l = quic_listener(SOCK_DGRAM, "127.0.0.10", 443), c, a;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[8], name[64], peer[64];

	(void)state;
	c = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	assert_int_equal(connect_to(c, "127.0.0.10", 443), 0);
	assert_int_equal(
	    strncmp(swrap_test_name(c, name, false), "127.0.0.11:", 11), 0);
	a = accept_first(l, c, &ss, &len);
	assert_string_equal(swrap_test_ntop(&ss, peer), name);
	assert_int_equal(send(a, "0123456789", 10, 0), 10);
	assert_int_equal(send(a, "ab", 2, 0), 2);
	assert_int_equal(recv(c, buf, 4, MSG_TRUNC), 10);
	assert_memory_equal(buf, "0123", 4);
	len = sizeof(ss);
	assert_int_equal(
	    recvfrom(c, buf, sizeof(buf), 0, (struct sockaddr *)&ss, &len), 2);
	assert_string_equal(swrap_test_ntop(&ss, name), "127.0.0.10:443");
	close(a);
	close(l);
	close(c);
	/* nobody listening: connect() sends nothing, so it succeeds; the
	 * first send is refused, and the next */
	c = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	assert_int_equal(connect_to(c, "127.0.0.10", 443), 0);
	for (int i = 0; i < 2; i++) {
		errno = 0;
		assert_int_equal(send(c, "x", 1, 0), -1);
		assert_int_equal(errno, ECONNREFUSED);
	}
	close(c);
	swrap_test_teardown(dir);
}

/* connect() sends nothing: a nonblocking listener has nothing to accept
 * (EAGAIN, not readable) until the client's first send, whichever call
 * makes it (send, write, writev, sendmsg, sendto with an address, which
 * the connected socket ignores). Before it the client names its peer,
 * may name another (the first send goes there), and a receive finds it
 * not connected (ENOTCONN), as upstream's socket_wrapper answers. */
static void test_connection_at_first_send(void **state)
{
	char *dir = swrap_test_setup("11");
	int l1 = quic_listener(SOCK_DGRAM, "127.0.0.10", 4433);
	int l2 = quic_listener(SOCK_DGRAM, "127.0.0.10", 4434);
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 999, &ss);
	struct pollfd p[2] = {{.fd = l1, .events = POLLIN},
			      {.fd = l2, .events = POLLIN}};
	char b[16], n1[64];

	(void)state;
	assert_int_equal(fcntl(l1, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(fcntl(l2, F_SETFL, O_NONBLOCK), 0);
	for (int how = 0; how < 5; how++) {
		int c = socket_wrapper_ipproto_quic_socket(
		    AF_INET, SOCK_DGRAM | SOCK_NONBLOCK);
		char first[] = "first";
		struct iovec v = {.iov_base = first, .iov_len = 5};
		struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
		ssize_t r = -1;
		int a;

		assert_int_equal(connect_to(c, "127.0.0.10", 4433), 0);
		assert_int_equal(poll(p, 2, 0), 0);
		errno = 0;
		assert_int_equal(accept(l1, NULL, NULL), -1);
		assert_int_equal(errno, EAGAIN);
		assert_string_equal(swrap_test_name(c, n1, true),
				    "127.0.0.10:4433");
		errno = 0;
		assert_int_equal(recv(c, b, sizeof(b), 0), -1);
		assert_int_equal(errno, ENOTCONN);
		/* another peer before the first send */
		assert_int_equal(connect_to(c, "127.0.0.10", 4434), 0);
		assert_string_equal(swrap_test_name(c, n1, true),
				    "127.0.0.10:4434");
		switch (how) {
		case 0:
			r = send(c, "first", 5, 0);
			break;
		case 1:
			r = write(c, "first", 5);
			break;
		case 2:
			r = writev(c, &v, 1);
			break;
		case 3:
			r = sendmsg(c, &m, 0);
			break;
		case 4:
			r = sendto(c, "first", 5, 0, (struct sockaddr *)&ss,
				   len);
			break;
		}
		assert_int_equal(r, 5);
		errno = 0;
		assert_int_equal(accept(l1, NULL, NULL), -1);
		assert_int_equal(errno, EAGAIN);
		a = accept(l2, NULL, NULL);
		assert_true(a >= 0);
		assert_int_equal(recv(a, b, sizeof(b), 0), 5);
		assert_memory_equal(b, "first", 5);
		/* connected now: as before */
		errno = 0;
		assert_int_equal(connect_to(c, "127.0.0.10", 4433), -1);
		assert_int_equal(errno, EISCONN);
		assert_int_equal(send(a, "back", 4, 0), 4);
		assert_int_equal(recv(c, b, sizeof(b), 0), 4);
		close(a);
		close(c);
	}
	close(l1);
	close(l2);
	swrap_test_teardown(dir);
}

/* dup, fork and SCM_RIGHTS: each copy is the same QUIC connection. */
static void test_dup_fork_rights(void **state)
{
	char *dir = swrap_test_setup("10");
	int l = quic_listener(SOCK_DGRAM, "127.0.0.10", 4433), c, a, d, sp[2];
	char buf[16], cbuf[CMSG_SPACE(sizeof(int))], n1[64], n2[64];
	struct iovec iov = {.iov_base = buf, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	pid_t pid;
	int st;

	(void)state;
	c = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_STREAM);
	assert_int_equal(connect_to(c, "127.0.0.10", 4433), 0);
	a = accept_first(l, c, NULL, NULL);
	d = dup(c);
	check_quic_options(d, AF_INET, SOCK_STREAM);
	assert_int_equal(send(d, "dup", 3, 0), 3);
	assert_int_equal(recv(a, buf, sizeof(buf), 0), 3);
	close(d);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		_exit(send(c, "child", 5, 0) == 5 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	assert_int_equal(recv(a, buf, sizeof(buf), 0), 5);
	assert_memory_equal(buf, "child", 5);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	buf[0] = 'x';
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &c, sizeof(int));
	assert_int_equal(sendmsg(sp[0], &m, 0), 1);
	m.msg_controllen = sizeof(cbuf);
	assert_int_equal(recvmsg(sp[1], &m, 0), 1);
	cm = CMSG_FIRSTHDR(&m);
	assert_non_null(cm);
	memcpy(&d, CMSG_DATA(cm), sizeof(int));
	/* (received: the type asked for is not in the kernel) */
	check_quic_options(d, AF_INET, SOCK_DGRAM);
	assert_string_equal(swrap_test_name(d, n1, true),
			    swrap_test_name(c, n2, true));
	assert_int_equal(send(d, "passed", 6, 0), 6);
	assert_int_equal(recv(a, buf, sizeof(buf), 0), 6);
	close(d);
	close(sp[0]);
	close(sp[1]);
	close(a);
	close(c);
	close(l);
	swrap_test_teardown(dir);
}

/* Without SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK (or with "0"), a
 * UDP socket cannot reach a QUIC socket's address: connect() and an
 * unconnected sendto() fail with EHOSTUNREACH; with it, neither a
 * server's socket (bound to its port) nor an unconnected one can. */
static void test_fallback_refused(void **state)
{
	char *dir = swrap_test_setup("11");
	int l = quic_listener(SOCK_DGRAM, "127.0.0.10", 4433), u, d;
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 4433, &ss);

	(void)state;
	for (int i = 0; i < 2; i++) {
		char b;

		if (i == 1) {
			assert_int_equal(setenv(FALLBACK, "0", 1), 0);
		}
		u = socket(AF_INET, SOCK_DGRAM, 0);
		errno = 0;
		assert_int_equal(connect_to(u, "127.0.0.10", 4433), -1);
		assert_int_equal(errno, EHOSTUNREACH);
		/* No ICMP error queued (as socat looks): EAGAIN at once,
		 * here and on the QUIC socket. */
		errno = 0;
		assert_int_equal(recv(i == 0 ? u : l, &b, 1, MSG_ERRQUEUE), -1);
		assert_int_equal(errno, EAGAIN);
		close(u);
	}
	assert_int_equal(setenv(FALLBACK, "1", 1), 0);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	errno = 0;
	assert_int_equal(sendto(u, "x", 1, 0, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EHOSTUNREACH);
	close(u);
	u = swrap_test_bound(SOCK_DGRAM, "127.0.0.11", 5000);
	errno = 0;
	assert_int_equal(connect_to(u, "127.0.0.10", 4433), -1);
	assert_int_equal(errno, EHOSTUNREACH);
	close(u);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	d = dup(u);
	errno = 0;
	assert_int_equal(connect_to(u, "127.0.0.10", 4433), -1);
	assert_int_equal(errno, EHOSTUNREACH);
	errno = 0;
	assert_int_equal(getpeername(u, (struct sockaddr *)&ss, &len), -1);
	assert_int_equal(errno, ENOTCONN);
	close(d);
	close(u);
	assert_int_equal(unsetenv(FALLBACK), 0);
	close(l);
	swrap_test_teardown(dir);
}

/* With the variable, a UDP client's connect() to the QUIC server makes it
 * a SOCK_SEQPACKET socket under the same descriptor and name: the server
 * accepts it, named by the client's address; datagrams keep their
 * boundaries; to the program it is still UDP. */
static void fallback(int family, const char *saddr, const char *caddr)
{
	/* caddr NULL: bound by connect() itself */
	char *dir = swrap_test_setup("10");
	int l = quic_listener(SOCK_DGRAM, saddr, 4433), u, a, d;
	char before[64], n1[64], n2[64], buf[8];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	assert_int_equal(setenv(FALLBACK, "1", 1), 0);
	u = socket(family, SOCK_DGRAM, 0);
	if (caddr != NULL) {
		bind_any_port(u, caddr);
		swrap_test_name(u, before, false);
	}
	d = dup(u); /* (closed before connect: one descriptor) */
	close(d);
	assert_int_equal(connect_to(u, saddr, 4433), 0);
	if (caddr != NULL) {
		assert_string_equal(swrap_test_name(u, n1, false), before);
	} else {
		swrap_test_name(u, before, false);
	}
	assert_int_equal(sockopt(u, SO_TYPE), SOCK_DGRAM);
	assert_int_equal(sockopt(u, SO_PROTOCOL), IPPROTO_UDP);
	a = accept_first(l, u, &ss, &len);
	assert_string_equal(swrap_test_ntop(&ss, n2), before);
	assert_string_equal(swrap_test_name(u, n1, true),
			    swrap_test_name(a, n2, false));
	datagrams(u, a);
	datagrams(a, u);
	len = sizeof(ss);
	assert_int_equal(send(a, "hi", 2, 0), 2);
	assert_int_equal(
	    recvfrom(u, buf, sizeof(buf), 0, (struct sockaddr *)&ss, &len), 2);
	assert_string_equal(swrap_test_ntop(&ss, n1),
			    swrap_test_name(l, n2, false));
	close(a);
	close(u);
	close(l);
	assert_int_equal(unsetenv(FALLBACK), 0);
	swrap_test_teardown(dir);
}

static void test_fallback_v4(void **state)
{
	(void)state;
	fallback(AF_INET, "127.0.0.10", "127.0.0.11");
}

static void test_fallback_v6(void **state)
{
	(void)state;
	fallback(AF_INET6, "fd00::5357:5f0a", NULL);
}

/* SOCKET_WRAPPER_FAULTS does not apply: a rule refusing everything lets
 * a QUIC connection through. */
static void test_no_faults(void **state)
{
	char *dir = swrap_test_setup("10");
	char *rules = cwrap_test_path(dir, "rules");
	int l = quic_listener(SOCK_DGRAM, "127.0.0.10", 4433), c, a, t;
	char buf[8];

	(void)state;
	cwrap_test_write_file(rules, "any * refuse\n");
	assert_int_equal(setenv("SOCKET_WRAPPER_FAULTS", rules, 1), 0);
	t = swrap_test_listener("127.0.0.10", 4433, 4);
	c = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	assert_int_equal(connect_to(c, "127.0.0.10", 4433), -1);
	assert_int_equal(errno, ECONNREFUSED); /* (TCP: the rule works) */
	close(c);
	close(t);
	c = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	assert_int_equal(connect_to(c, "127.0.0.10", 4433), 0);
	a = accept_first(l, c, NULL, NULL);
	assert_int_equal(send(c, "q", 1, 0), 1);
	assert_int_equal(recv(a, buf, sizeof(buf), 0), 1);
	assert_int_equal(write(a, "r", 1), 1);
	assert_int_equal(read(c, buf, sizeof(buf)), 1);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_FAULTS"), 0);
	close(a);
	close(c);
	close(l);
	free(rules);
	swrap_test_teardown(dir);
}

/* The capture: UDP datagrams between the emulated addresses, both kinds
 * of client, nothing of TCP. */
static void test_capture(void **state)
{
	char *dir = swrap_test_setup("10");
	char *path = cwrap_test_path(dir, "quic.pcap");
	int l = quic_listener(SOCK_DGRAM, "127.0.0.10", 4433), c, u, a1, a2;
	struct cwrap_pcap *cap;
	size_t udp = 0, hello = 0, initial = 0;
	char addr[64];

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", path, 1), 0);
	assert_int_equal(setenv(FALLBACK, "1", 1), 0);
	c = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	bind_any_port(c, "127.0.0.11");
	assert_int_equal(connect_to(c, "127.0.0.10", 4433), 0);
	a1 = accept_first(l, c, NULL, NULL);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind_any_port(u, "127.0.0.12");
	assert_int_equal(connect_to(u, "127.0.0.10", 4433), 0);
	a2 = accept_first(l, u, NULL, NULL);
	assert_int_equal(send(c, "quic-hello", 10, 0), 10);
	assert_int_equal(recv(a1, addr, sizeof(addr), 0), 10);
	assert_int_equal(send(a2, "udp-reply", 9, 0), 9);
	assert_int_equal(recv(u, addr, sizeof(addr), 0), 9);
	close(a1);
	close(a2);
	close(c);
	close(u);
	close(l);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_PCAP_FILE"), 0);
	assert_int_equal(unsetenv(FALLBACK), 0);
	cap = cwrap_pcap_read(path);
	assert_non_null(cap);
	for (size_t i = 0; i < cap->n; i++) {
		const struct cwrap_pcap_pkt *k = &cap->pkts[i];

		assert_int_equal(k->proto, 17);
		assert_true(k->l4_csum_ok);
		assert_int_equal(k->dport == 4433 || k->sport == 4433, 1);
		if (k->payload_len == 7) {
			assert_memory_equal(k->payload, "Initial", 7);
			assert_int_equal(k->dport, 4433);
			initial++;
		} else if (k->payload_len == 10) {
			assert_memory_equal(k->payload, "quic-hello", 10);
			assert_string_equal(
			    cwrap_pcap_addr(4, k->src, addr, sizeof(addr)),
			    "127.0.0.11");
			assert_int_equal(k->dport, 4433);
			hello++;
		} else {
			assert_int_equal(k->payload_len, 9);
			assert_memory_equal(k->payload, "udp-reply", 9);
			assert_string_equal(
			    cwrap_pcap_addr(4, k->dst, addr, sizeof(addr)),
			    "127.0.0.12");
			assert_int_equal(k->sport, 4433);
		}
		udp++;
	}
	/* each datagram once, whichever end reported it first */
	assert_int_equal(udp, 4);
	assert_int_equal(hello, 1);
	assert_int_equal(initial, 2);
	cwrap_pcap_free(cap);
	free(path);
	swrap_test_teardown(dir);
}

/* No wrapper: the no-op library's function makes the kernel's socket
 * (EPROTONOSUPPORT without the QUIC module). */
static void test_noop(void **state)
{
	int fd, real, e;

	(void)state;
	assert_false(socket_wrapper_enabled());
	errno = 0;
	fd = socket_wrapper_ipproto_quic_socket(AF_INET, SOCK_DGRAM);
	e = errno;
	real = socket(AF_INET, SOCK_DGRAM, QUIC);
	if (real >= 0) {
		assert_true(fd >= 0);
		close(real);
		close(fd);
		return;
	}
	assert_int_equal(fd, -1);
	assert_int_equal(e, EPROTONOSUPPORT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quic_socket),
	    cmocka_unit_test(test_server_client_v4),
	    cmocka_unit_test(test_server_client_v6),
	    cmocka_unit_test(test_autobind_trunc_refused),
	    cmocka_unit_test(test_connection_at_first_send),
	    cmocka_unit_test(test_dup_fork_rights),
	    cmocka_unit_test(test_fallback_refused),
	    cmocka_unit_test(test_fallback_v4),
	    cmocka_unit_test(test_fallback_v6),
	    cmocka_unit_test(test_no_faults),
	    cmocka_unit_test(test_capture),
	};
	const struct CMUnitTest noop[] = {
	    cmocka_unit_test(test_noop),
	};

	if (getenv("SWRAP_QUIC_NOOP") != NULL) {
		return cmocka_run_group_tests(noop, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
