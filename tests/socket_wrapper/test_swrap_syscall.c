/*
 * Socket calls made through syscall() (libuv, BIND's dig) and past the
 * wrapper altogether (io_uring, libc's own syscall()): a connected UDP
 * socket is connected in the kernel to its peer, so data sent with no
 * address reaches it and the peer sees the sender's emulated address;
 * syscall(SYS_socket, ...) and the other socket numbers meet the
 * emulation. Run with socket_wrapper alone, with uid_wrapper before or
 * after it (both interpose syscall() and pass on what they do not own),
 * and with uid_wrapper alone: each library answers its own numbers.
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <netinet/tcp.h>

static char *dir;
static bool have_socket, have_uid;
/* libc's own syscall(): straight to the kernel, past every wrapper. */
static long (*raw_syscall)(long, ...);

static int setup(void **state)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	(void)state;
	dir = swrap_test_setup("30");
	have_socket = dlsym(RTLD_DEFAULT, "socket_wrapper_enabled") != NULL;
	have_uid = dlsym(RTLD_DEFAULT, "uid_wrapper_enabled") != NULL;
	assert_non_null(libc);
	raw_syscall = (long (*)(long, ...))dlsym(libc, "syscall");
	assert_non_null(raw_syscall);
	printf("socket_wrapper %s, uid_wrapper %s\n",
	       have_socket ? "loaded" : "absent",
	       have_uid ? "loaded" : "absent");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

/* dig's way: connect() the UDP socket, then sendmmsg() with no address,
 * through syscall() and through libc's syscall() (past the wrapper): the
 * datagrams arrive from the client's emulated address. IPv4 and IPv6. */
static void test_connected_udp_sendmmsg(void **state)
{
	static const char *const srv_addr[2] = {"127.0.0.10",
						"fd00::5357:5f0a"};

	(void)state;
	if (!have_socket) {
		skip();
	}
	for (int v = 0; v < 2; v++) {
		int srv = swrap_test_bound(SOCK_DGRAM, srv_addr[v], 53);
		int cli = socket(v == 0 ? AF_INET : AF_INET6, SOCK_DGRAM, 0);
		struct sockaddr_storage to, me, from;
		socklen_t tlen = swrap_test_sa(srv_addr[v], 53, &to);
		socklen_t mlen = sizeof(me);
		char want[64], got[64], buf[16];

		assert_int_equal(connect(cli, (struct sockaddr *)&to, tlen), 0);
		assert_int_equal(
		    getsockname(cli, (struct sockaddr *)&me, &mlen), 0);
		swrap_test_ntop(&me, want);
		assert_non_null(strstr(want, v == 0 ? "127.0.0.30:"
						    : "[fd00::5357:5f1e]:"));
		for (int way = 0; way < 2; way++) {
			long (*call)(long, ...) =
			    way == 0 ? syscall : raw_syscall;
			struct iovec iov[2] = {
			    {.iov_base = (void *)"one", .iov_len = 3},
			    {.iov_base = (void *)"two", .iov_len = 3}};
			struct mmsghdr mm[2];

			memset(mm, 0, sizeof(mm));
			mm[0].msg_hdr.msg_iov = &iov[0];
			mm[0].msg_hdr.msg_iovlen = 1;
			mm[1].msg_hdr.msg_iov = &iov[1];
			mm[1].msg_hdr.msg_iovlen = 1;
			assert_int_equal(call(SYS_sendmmsg, cli, mm, 2, 0), 2);
			assert_int_equal(
			    call(SYS_sendto, cli, "three", 5, 0, NULL, 0), 5);
			assert_int_equal(call(SYS_write, cli, "four", 4), 4);
			for (int i = 0; i < 4; i++) {
				socklen_t flen = sizeof(from);
				ssize_t n =
				    recvfrom(srv, buf, sizeof(buf), 0,
					     (struct sockaddr *)&from, &flen);

				assert_int_equal(n, i < 2 ? 3 : i == 2 ? 5 : 4);
				assert_string_equal(swrap_test_ntop(&from, got),
						    want);
			}
			printf("%s, %s: from %s\n", v == 0 ? "IPv4" : "IPv6",
			       way == 0 ? "syscall()" : "libc's syscall()",
			       got);
		}
		/* The answer comes back, read past the wrapper too. */
		assert_int_equal(
		    sendto(srv, "back", 4, 0, (struct sockaddr *)&me, mlen), 4);
		assert_int_equal(raw_syscall(SYS_read, cli, buf, sizeof(buf)),
				 4);
		assert_memory_equal(buf, "back", 4);
		/* Disconnected: no kernel peer any more. */
		{
			struct sockaddr un = {.sa_family = AF_UNSPEC};

			assert_int_equal(connect(cli, &un, sizeof(un)), 0);
			assert_int_equal(raw_syscall(SYS_write, cli, "x", 1),
					 -1);
			assert_int_equal(errno, ENOTCONN);
		}
		close(cli);
		close(srv);
	}
}

/* A UDP socket connected to an address nobody has bound yet: connect()
 * succeeds (as UDP's does), our sends are dropped (the next send reports
 * the port unreachable, as from the kernel), and once the peer exists
 * they arrive by name. */
static void test_connected_udp_to_nobody(void **state)
{
	struct sockaddr_storage to;
	socklen_t tlen = swrap_test_sa("127.0.0.11", 5353, &to);
	int cli, srv;
	char buf[8];

	(void)state;
	if (!have_socket) {
		skip();
	}
	cli = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(connect(cli, (struct sockaddr *)&to, tlen), 0);
	assert_int_equal(send(cli, "lost", 4, 0), 4);
	srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.11", 5353);
	assert_int_equal(syscall(SYS_sendto, cli, "late", 4, 0, NULL, 0), -1);
	assert_int_equal(errno, ECONNREFUSED);
	assert_int_equal(syscall(SYS_sendto, cli, "late", 4, 0, NULL, 0), 4);
	assert_int_equal(recv(srv, buf, sizeof(buf), 0), 4);
	assert_memory_equal(buf, "late", 4);
	close(cli);
	close(srv);
}

/* The connected client `cli` sends "ping" to `srv`, which answers "pong"
 * to the client's address `me`. */
static void ping_pong(int cli, int srv, const struct sockaddr_storage *me,
		      socklen_t mlen)
{
	char buf[8];

	assert_int_equal(send(cli, "ping", 4, 0), 4);
	assert_int_equal(recv(srv, buf, sizeof(buf), 0), 4);
	assert_memory_equal(buf, "ping", 4);
	assert_int_equal(
	    sendto(srv, "pong", 4, 0, (const struct sockaddr *)me, mlen), 4);
	assert_int_equal(recv(cli, buf, sizeof(buf), 0), 4);
	assert_memory_equal(buf, "pong", 4);
}

/* A connected UDP client keeps talking to a server that restarted on
 * the same address (its old socket closed, a new one bound), both ways,
 * as with UDP; and a datagram from another socket does not reach it. */
static void test_connected_udp_server_restart(void **state)
{
	struct sockaddr_storage to, me;
	socklen_t tlen = swrap_test_sa("127.0.0.12", 5300, &to);
	socklen_t mlen = sizeof(me);
	int srv, cli, other;
	char buf[8];

	(void)state;
	if (!have_socket) {
		skip();
	}
	for (int round = 0; round < 3; round++) {
		srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.12", 5300);
		if (round == 0) {
			cli = socket(AF_INET, SOCK_DGRAM, 0);
			assert_int_equal(
			    connect(cli, (struct sockaddr *)&to, tlen), 0);
			assert_int_equal(
			    getsockname(cli, (struct sockaddr *)&me, &mlen), 0);
		}
		ping_pong(cli, srv, &me, mlen);
		close(srv);
	}
	/* Another socket's datagram is dropped (the sender is not told). */
	other = socket(AF_INET, SOCK_DGRAM, 0);
	srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.12", 5300);
	assert_int_equal(
	    sendto(other, "stray", 5, 0, (struct sockaddr *)&me, mlen), 5);
	ping_pong(cli, srv, &me, mlen);
	assert_int_equal(recv(cli, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(other);
	close(srv);
	close(cli);
}

/* The other socket numbers of syscall() are the emulation's. */
static void test_socket_numbers(void **state)
{
	struct sockaddr_storage ss, got;
	socklen_t len = swrap_test_sa("127.0.0.30", 8080, &ss), glen;
	int l, c, a, d, v = 1, p[2];
	socklen_t vlen = sizeof(v);
	char buf[64];
	struct stat st;

	(void)state;
	if (!have_socket) {
		skip();
	}
	l = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_true(swrap_test_is_unix(l));
	assert_int_equal(syscall(SYS_bind, l, &ss, len), 0);
	snprintf(buf, sizeof(buf), "%s/T1E1F90", dir);
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(syscall(SYS_listen, l, 4), 0);
	c = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	assert_int_equal(syscall(SYS_connect, c, &ss, len), 0);
	glen = sizeof(got);
	a = (int)syscall(SYS_accept4, l, &got, &glen, 0);
	assert_true(a >= 0);
	assert_non_null(strstr(swrap_test_ntop(&got, buf), "127.0.0.30:"));
	glen = sizeof(got);
	assert_int_equal(syscall(SYS_getsockname, a, &got, &glen), 0);
	assert_string_equal(swrap_test_ntop(&got, buf), "127.0.0.30:8080");
	glen = sizeof(got);
	assert_int_equal(syscall(SYS_getpeername, c, &got, &glen), 0);
	assert_string_equal(swrap_test_ntop(&got, buf), "127.0.0.30:8080");
	assert_int_equal(
	    syscall(SYS_getsockopt, c, SOL_SOCKET, SO_DOMAIN, &v, &vlen), 0);
	assert_int_equal(v, AF_INET);
	v = 1;
	assert_int_equal(
	    syscall(SYS_setsockopt, c, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)),
	    0);
	v = 0;
	vlen = sizeof(v);
	assert_int_equal(
	    syscall(SYS_getsockopt, c, IPPROTO_TCP, TCP_NODELAY, &v, &vlen), 0);
	assert_int_equal(v, 1);
	/* dup and close through syscall(): the record follows. */
	d = (int)syscall(SYS_dup, c);
	assert_true(d >= 0);
	glen = sizeof(got);
	assert_int_equal(getpeername(d, (struct sockaddr *)&got, &glen), 0);
	assert_int_equal(syscall(SYS_close, d), 0);
	assert_int_equal(pipe(p), 0);
	assert_true(p[0] == d || p[1] == d);
	glen = sizeof(got);
	assert_int_equal(getsockname(d, (struct sockaddr *)&got, &glen), -1);
	assert_int_equal(errno, ENOTSOCK);
	close(p[0]);
	close(p[1]);
	assert_int_equal(syscall(SYS_write, c, "hi", 2), 2);
	assert_int_equal(
	    syscall(SYS_recvfrom, a, buf, 2, MSG_WAITALL, NULL, NULL), 2);
	assert_memory_equal(buf, "hi", 2);
	close(a);
	close(c);
	close(l);

	/* UDP: addresses translated both ways. */
	{
		int s = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
		int u = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);

		len = swrap_test_sa("127.0.0.30", 9999, &ss);
		assert_int_equal(syscall(SYS_bind, s, &ss, len), 0);
		assert_int_equal(
		    syscall(SYS_sendto, u, "dgram", 5, 0, &ss, len), 5);
		glen = sizeof(got);
		assert_int_equal(
		    syscall(SYS_recvfrom, s, buf, sizeof(buf), 0, &got, &glen),
		    5);
		assert_non_null(
		    strstr(swrap_test_ntop(&got, buf), "127.0.0.30:"));
		close(s);
		close(u);
	}
}

/* SYS_recvmmsg (SYS_recvmmsg_time64 too, where it exists) with a timeout
 * in the kernel's layout: the datagrams arrive from the emulated address,
 * and an empty socket waits out the timeout. */
static void test_recvmmsg_numbers(void **state)
{
	struct sockaddr_storage ss, from[2];
	socklen_t len;
	char buf[2][16];
	struct iovec iov[2] = {{buf[0], sizeof(buf[0])},
			       {buf[1], sizeof(buf[1])}};
	struct mmsghdr mm[2];
	long ts[2] = {0, 200000000L}; /* the kernel's timespec: two longs */
	int s, u, k;

	(void)state;
	if (!have_socket) {
		skip();
	}
	s = swrap_test_bound(SOCK_DGRAM, "127.0.0.30", 9998);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	len = swrap_test_sa("127.0.0.30", 9998, &ss);
	for (int variant = 0; variant < 2; variant++) {
		long nr = SYS_recvmmsg;

		if (variant == 1) {
#ifdef SYS_recvmmsg_time64
			nr = SYS_recvmmsg_time64;
#else
			break;
#endif
		}
		assert_int_equal(
		    sendto(u, "one", 3, 0, (struct sockaddr *)&ss, len), 3);
		assert_int_equal(
		    sendto(u, "two", 3, 0, (struct sockaddr *)&ss, len), 3);
		memset(mm, 0, sizeof(mm));
		for (k = 0; k < 2; k++) {
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
			mm[k].msg_hdr.msg_name = &from[k];
			mm[k].msg_hdr.msg_namelen = sizeof(from[k]);
		}
		if (variant == 0) {
			assert_int_equal(syscall(nr, s, mm, 2, 0, ts), 2);
		} else {
			int64_t ts64[2] = {0, 200000000};

			assert_int_equal(syscall(nr, s, mm, 2, 0, ts64), 2);
		}
		for (k = 0; k < 2; k++) {
			char name[64];

			assert_int_equal(mm[k].msg_len, 3);
			assert_memory_equal(buf[k], k == 0 ? "one" : "two", 3);
			assert_non_null(strstr(swrap_test_ntop(&from[k], name),
					       "127.0.0.30:"));
		}
	}
	/* Nothing there: MSG_DONTWAIT gives EAGAIN, not a kernel error
	 * about the unix socket. */
	mm[0].msg_hdr.msg_namelen = sizeof(from[0]);
	assert_int_equal(syscall(SYS_recvmmsg, s, mm, 1, MSG_DONTWAIT, NULL),
			 -1);
	assert_int_equal(errno, EAGAIN);
	close(s);
	close(u);
}

#ifdef SYS_socketcall
#include <linux/net.h>

/* i386's socketcall(): every call number reaches the emulation. */
static long sc(int call, unsigned long a0, unsigned long a1, unsigned long a2,
	       unsigned long a3, unsigned long a4, unsigned long a5)
{
	unsigned long args[6] = {a0, a1, a2, a3, a4, a5};

	return syscall(SYS_socketcall, call, args);
}
#define UL(x) ((unsigned long)(uintptr_t)(x))

static void test_socketcall(void **state)
{
	struct sockaddr_storage ss, got;
	socklen_t len = swrap_test_sa("127.0.0.30", 8081, &ss), glen;
	int l, c, a, v = 0, sv[2];
	socklen_t vlen = sizeof(v);
	char buf[64];
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr mh = {0};
	struct mmsghdr mm = {0};

	(void)state;
	if (!have_socket) {
		skip();
	}
	l = (int)sc(SYS_SOCKET, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
	assert_true(l >= 0);
	assert_true(swrap_test_is_unix(l));
	assert_int_equal(sc(SYS_BIND, l, UL(&ss), len, 0, 0, 0), 0);
	assert_int_equal(sc(SYS_LISTEN, l, 4, 0, 0, 0, 0), 0);
	c = (int)sc(SYS_SOCKET, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
	assert_int_equal(sc(SYS_CONNECT, c, UL(&ss), len, 0, 0, 0), 0);
	glen = sizeof(got);
	a = (int)sc(SYS_ACCEPT, l, UL(&got), UL(&glen), 0, 0, 0);
	assert_true(a >= 0);
	assert_non_null(strstr(swrap_test_ntop(&got, buf), "127.0.0.30:"));
	glen = sizeof(got);
	assert_int_equal(sc(SYS_GETSOCKNAME, a, UL(&got), UL(&glen), 0, 0, 0),
			 0);
	assert_string_equal(swrap_test_ntop(&got, buf), "127.0.0.30:8081");
	glen = sizeof(got);
	assert_int_equal(sc(SYS_GETPEERNAME, c, UL(&got), UL(&glen), 0, 0, 0),
			 0);
	assert_string_equal(swrap_test_ntop(&got, buf), "127.0.0.30:8081");
	assert_int_equal(sc(SYS_GETSOCKOPT, c, SOL_SOCKET, SO_PROTOCOL, UL(&v),
			    UL(&vlen), 0),
			 0);
	assert_int_equal(v, IPPROTO_TCP);
	v = 1;
	assert_int_equal(sc(SYS_SETSOCKOPT, c, IPPROTO_TCP, TCP_NODELAY, UL(&v),
			    sizeof(v), 0),
			 0);
	assert_int_equal(sc(SYS_SEND, c, UL("ab"), 2, 0, 0, 0), 2);
	assert_int_equal(sc(SYS_RECV, a, UL(buf), 2, MSG_WAITALL, 0, 0), 2);
	assert_memory_equal(buf, "ab", 2);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	iov.iov_base = (void *)"cd";
	iov.iov_len = 2;
	assert_int_equal(sc(SYS_SENDMSG, c, UL(&mh), 0, 0, 0, 0), 2);
	iov.iov_base = buf;
	assert_int_equal(sc(SYS_RECVMSG, a, UL(&mh), MSG_WAITALL, 0, 0, 0), 2);
	assert_memory_equal(buf, "cd", 2);
	assert_int_equal(sc(SYS_SHUTDOWN, c, SHUT_WR, 0, 0, 0, 0), 0);
	assert_int_equal(sc(SYS_RECVFROM, a, UL(buf), 1, 0, 0, 0), 0);
	close(a);
	close(c);
	c = (int)sc(SYS_SOCKET, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
	assert_int_equal(sc(SYS_CONNECT, c, UL(&ss), len, 0, 0, 0), 0);
	a = (int)sc(SYS_ACCEPT4, l, 0, 0, SOCK_CLOEXEC, 0, 0);
	assert_true(a >= 0);
	assert_true(fcntl(a, F_GETFD) & FD_CLOEXEC);
	glen = sizeof(got);
	assert_int_equal(getsockname(a, (struct sockaddr *)&got, &glen), 0);
	assert_string_equal(swrap_test_ntop(&got, buf), "127.0.0.30:8081");
	close(a);
	close(c);
	close(l);

	/* UDP: sendto/recvfrom/sendmmsg/recvmmsg. */
	len = swrap_test_sa("127.0.0.30", 9997, &ss);
	l = (int)sc(SYS_SOCKET, AF_INET, SOCK_DGRAM, 0, 0, 0, 0);
	c = (int)sc(SYS_SOCKET, AF_INET, SOCK_DGRAM, 0, 0, 0, 0);
	assert_int_equal(sc(SYS_BIND, l, UL(&ss), len, 0, 0, 0), 0);
	assert_int_equal(sc(SYS_SENDTO, c, UL("ef"), 2, 0, UL(&ss), len), 2);
	glen = sizeof(got);
	assert_int_equal(
	    sc(SYS_RECVFROM, l, UL(buf), sizeof(buf), 0, UL(&got), UL(&glen)),
	    2);
	assert_non_null(strstr(swrap_test_ntop(&got, buf + 8), "127.0.0.30:"));
	assert_int_equal(sc(SYS_CONNECT, c, UL(&ss), len, 0, 0, 0), 0);
	iov.iov_base = (void *)"gh";
	iov.iov_len = 2;
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	assert_int_equal(sc(SYS_SENDMMSG, c, UL(&mm), 1, 0, 0, 0), 1);
	memset(&mm, 0, sizeof(mm));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	mm.msg_hdr.msg_name = &got;
	mm.msg_hdr.msg_namelen = sizeof(got);
	assert_int_equal(sc(SYS_RECVMMSG, l, UL(&mm), 1, 0, 0, 0), 1);
	assert_int_equal(mm.msg_len, 2);
	assert_memory_equal(buf, "gh", 2);
	assert_non_null(strstr(swrap_test_ntop(&got, buf + 8), "127.0.0.30:"));
	close(l);
	close(c);

	/* socketpair is the kernel's. */
	assert_int_equal(
	    sc(SYS_SOCKETPAIR, AF_UNIX, SOCK_STREAM, 0, UL(sv), 0, 0), 0);
	close(sv[0]);
	close(sv[1]);
}
#endif

/* Socket kinds the wrapper does not emulate (raw, ICMP, SCTP) are refused
 * through syscall() too, and through i386's socketcall(): nothing reaches
 * the real network, whatever way a program asks. */
static void test_not_emulated_refused(void **state)
{
	static const int kinds[][3] = {
	    {AF_INET, SOCK_RAW, IPPROTO_ICMP},
	    {AF_INET6, SOCK_RAW, IPPROTO_ICMPV6},
	    {AF_INET, SOCK_DGRAM, IPPROTO_ICMP},
	    {AF_INET, SOCK_STREAM, IPPROTO_SCTP},
	};

	(void)state;
	if (!have_socket) {
		skip();
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		errno = 0;
		assert_int_equal(
		    syscall(SYS_socket, kinds[i][0], kinds[i][1], kinds[i][2]),
		    -1);
		assert_int_equal(errno, EPROTONOSUPPORT);
#ifdef SYS_socketcall
		{
			unsigned long a[6] = {(unsigned long)kinds[i][0],
					      (unsigned long)kinds[i][1],
					      (unsigned long)kinds[i][2]};

			errno = 0;
			assert_int_equal(
			    syscall(SYS_socketcall, 1 /* SOCKET */, a), -1);
			assert_int_equal(errno, EPROTONOSUPPORT);
		}
#endif
	}
}

/* The numbers neither wrapper owns reach the kernel; uid_wrapper's are
 * uid_wrapper's, whichever comes first in LD_PRELOAD. */
static void test_other_numbers(void **state)
{
	(void)state;
	assert_int_equal(syscall(SYS_getpid), getpid());
	assert_true(syscall(SYS_gettid) > 0);
	if (have_uid) {
		/* UID_WRAPPER_ROOT=1: root in this thread, then another
		 * uid for this thread only. */
		assert_int_equal(syscall(SYS_getuid), 0);
		assert_int_equal(syscall(SYS_setresuid, 4242, 4242, -1), 0);
		assert_int_equal(syscall(SYS_getuid), 4242);
		assert_int_equal(syscall(SYS_geteuid), 4242);
		assert_int_equal(syscall(SYS_setresuid, -1, 0, -1), 0);
		assert_int_equal(syscall(SYS_setresuid, 0, 0, 0), 0);
		assert_int_equal(syscall(SYS_getuid), 0);
	} else {
		assert_int_equal(syscall(SYS_getuid), (long)getuid());
	}
	if (!have_socket) {
		/* uid_wrapper alone passes socket numbers to the kernel. */
		int fd = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);

		assert_true(fd >= 0);
		assert_false(swrap_test_is_unix(fd));
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_connected_udp_sendmmsg),
	    cmocka_unit_test(test_connected_udp_to_nobody),
	    cmocka_unit_test(test_connected_udp_server_restart),
	    cmocka_unit_test(test_socket_numbers),
	    cmocka_unit_test(test_recvmmsg_numbers),
#ifdef SYS_socketcall
	    cmocka_unit_test(test_socketcall),
#endif
	    cmocka_unit_test(test_not_emulated_refused),
	    cmocka_unit_test(test_other_numbers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
