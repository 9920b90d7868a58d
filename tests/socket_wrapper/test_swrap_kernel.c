/*
 * Where the kernel has an opinion, the emulation answers as it does, each
 * case compared with a real kernel socket on 127.0.0.1 / ::1 (port 0) in
 * the same process: bind with AF_UNSPEC, the name of a wildcard-bound
 * socket once it connected, IPv4 addresses given to IPv6 sockets (bind,
 * bindresvport, TCP and UDP connect), socket() with unknown types and
 * protocols. Also: sockets of kinds that are not emulated are refused
 * rather than made on the real network, and SOCKET_WRAPPER_MAX_SOCKETS
 * ends in ENFILE for socket(), accept() and dup(). A connected UDP
 * socket hears that its peer's port has nobody (ECONNREFUSED), as from
 * the kernel's port unreachable. Default interface 30.
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

static char *dir;
static bool have_ipv6; /* ::1 on the real loopback */

static int setup(void **state)
{
	int fd;
	struct sockaddr_storage ss;
	socklen_t len;

	(void)state;
	dir = swrap_test_setup("30");
	close(socket(AF_INET, SOCK_STREAM, 0)); /* the wrapper reads it */
	fd = swrap_test_real_socket(AF_INET6, SOCK_DGRAM, 0);
	len = swrap_test_sa("::1", 0, &ss);
	have_ipv6 = fd >= 0 && bind(fd, (struct sockaddr *)&ss, len) == 0;
	if (fd >= 0) {
		close(fd);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

static int sock(bool real, int family, int type)
{
	int fd = real ? swrap_test_real_socket(family, type, 0)
		      : socket(family, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(swrap_test_is_unix(fd), !real);
	return fd;
}

/* rc and errno of a call, to compare */
struct res {
	int rc, err;
};

#define RES(call)                                                              \
	({                                                                     \
		int rc_ = (call);                                              \
		(struct res){rc_, rc_ < 0 ? errno : 0};                        \
	})

static void same(const char *what, struct res kernel, struct res ours)
{
	printf("%s: kernel %d (%s), ours %d (%s)\n", what, kernel.rc,
	       kernel.rc < 0 ? strerror(kernel.err) : "ok", ours.rc,
	       ours.rc < 0 ? strerror(ours.err) : "ok");
	assert_int_equal(ours.rc < 0, kernel.rc < 0);
	assert_int_equal(ours.err, kernel.err);
}

/* The address only ("127.0.0.30" of "127.0.0.30:1234"). */
static const char *host_of(int fd, char *buf)
{
	char *p;

	swrap_test_name(fd, buf, false);
	p = strrchr(buf, ':');
	*p = '\0';
	if (buf[0] == '[') {
		memmove(buf, buf + 1, strlen(buf));
		buf[strlen(buf) - 1] = '\0';
	}
	return buf;
}

/* Linux accepts AF_UNSPEC with INADDR_ANY in bind() on an AF_INET socket,
 * for compatibility; AF_UNSPEC with another address is EAFNOSUPPORT. */
static void test_bind_af_unspec(void **state)
{
	char buf[64];

	(void)state;
	for (int any = 1; any >= 0; any--) {
		struct res r[2];

		for (int real = 0; real < 2; real++) {
			int fd = sock(real, AF_INET, SOCK_DGRAM);
			struct sockaddr_in sin = {.sin_family = AF_UNSPEC};

			sin.sin_addr.s_addr =
			    any ? htonl(INADDR_ANY)
				: inet_addr(real ? "127.0.0.1" : "127.0.0.30");
			r[real] =
			    RES(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
			if (r[real].rc == 0 && !real) {
				assert_int_equal(
				    strncmp(swrap_test_name(fd, buf, false),
					    "0.0.0.0:", 8),
				    0);
			}
			close(fd);
		}
		same(any ? "bind AF_UNSPEC INADDR_ANY"
			 : "bind AF_UNSPEC 127.0.0.x",
		     r[1], r[0]);
		assert_int_equal(r[0].rc, any ? 0 : -1);
	}
}

/* A socket bound to the wildcard (port 0 or a port) that connects names
 * the address it sends from: the kernel's 127.0.0.1, our interface 30;
 * a UDP socket that disconnects (AF_UNSPEC) shows the wildcard again, as
 * does one that only sent. IPv6, and IPv6 to a v4-mapped peer, alike. */
static void test_wildcard_then_connect(void **state)
{
	static const struct {
		int family, type;
		const char *wild, *srv_real, *srv_ours;
		bool mapped; /* connect to the server's v4-mapped address */
		const char *want_real, *want_ours;
	} cases[] = {
	    {AF_INET, SOCK_STREAM, "0.0.0.0", "127.0.0.1", "127.0.0.31", false,
	     "127.0.0.1", "127.0.0.30"},
	    {AF_INET, SOCK_DGRAM, "0.0.0.0", "127.0.0.1", "127.0.0.31", false,
	     "127.0.0.1", "127.0.0.30"},
	    {AF_INET6, SOCK_STREAM, "::", "::1", "fd00::5357:5f1f", false,
	     "::1", "fd00::5357:5f1e"},
	    {AF_INET6, SOCK_DGRAM, "::", "::1", "fd00::5357:5f1f", false, "::1",
	     "fd00::5357:5f1e"},
	    {AF_INET6, SOCK_STREAM, "::", "127.0.0.1", "127.0.0.31", true,
	     "::ffff:127.0.0.1", "::ffff:127.0.0.30"},
	    {AF_INET6, SOCK_DGRAM, "::", "127.0.0.1", "127.0.0.31", true,
	     "::ffff:127.0.0.1", "::ffff:127.0.0.30"},
	};
	char buf[64], a[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int real = 0; real < 2; real++) {
			/* ours with port 0 and a port; the kernel with 0 */
			for (int port = 0; port < (real ? 1 : 2); port++) {
				const char *sa = real ? cases[i].srv_real
						      : cases[i].srv_ours;
				struct sockaddr_storage ss, ps;
				socklen_t len = swrap_test_sa(
				    cases[i].wild, port ? 4000 + (int)i : 0,
				    &ss);
				socklen_t plen = swrap_test_sa(
				    sa, real ? 0 : 5000 + (int)i, &ps);
				int srv, fd;

				if (real && cases[i].family == AF_INET6 &&
				    !have_ipv6) {
					continue;
				}
				srv = sock(real, ps.ss_family, cases[i].type);
				assert_int_equal(
				    bind(srv, (struct sockaddr *)&ps, plen), 0);
				assert_int_equal(
				    getsockname(srv, (struct sockaddr *)&ps,
						&plen),
				    0);
				if (cases[i].type == SOCK_STREAM) {
					assert_int_equal(listen(srv, 4), 0);
				}
				if (cases[i].mapped) {
					snprintf(a, sizeof(a), "::ffff:%s", sa);
					plen = swrap_test_sa(
					    a,
					    ntohs(((struct sockaddr_in *)&ps)
						      ->sin_port),
					    &ps);
				}
				fd = sock(real, cases[i].family, cases[i].type);
				assert_int_equal(
				    bind(fd, (struct sockaddr *)&ss, len), 0);
				assert_int_equal(
				    connect(fd, (struct sockaddr *)&ps, plen),
				    0);
				printf("%s %s bound to %s port %s, connected: "
				       "%s\n",
				       real ? "kernel" : "ours",
				       cases[i].type == SOCK_STREAM ? "TCP"
								    : "UDP",
				       cases[i].wild, port ? "N" : "0",
				       swrap_test_name(fd, buf, false));
				assert_string_equal(host_of(fd, buf),
						    real ? cases[i].want_real
							 : cases[i].want_ours);
				if (cases[i].type == SOCK_DGRAM) {
					struct sockaddr un = {.sa_family =
								  AF_UNSPEC};

					assert_int_equal(
					    connect(fd, &un, sizeof(un)), 0);
					assert_string_equal(host_of(fd, buf),
							    cases[i].wild);
				}
				close(fd);
				close(srv);
			}
		}
	}
}

/* A UDP socket that sent without binding: bound to the wildcard. */
static void test_sent_unbound_name(void **state)
{
	char buf[64];

	(void)state;
	for (int real = 0; real < 2; real++) {
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa(real ? "127.0.0.1" : "127.0.0.31",
					      real ? 9 : 9, &ss);
		int fd = sock(real, AF_INET, SOCK_DGRAM);

		/* sent, errno untouched, though nobody has the port (the
		 * wrapper's own lookups fail with ENOENT underneath) */
		errno = 0;
		assert_int_equal(
		    sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len), 1);
		assert_int_equal(errno, 0);
		swrap_test_name(fd, buf, false);
		assert_int_equal(strncmp(buf, "0.0.0.0:", 8), 0);
		assert_string_not_equal(buf, "0.0.0.0:0");
		close(fd);
	}
}

/* sockaddr_in given to IPv6 sockets: bind (the length is checked first),
 * bindresvport, TCP connect (EINVAL for 16 bytes, EAFNOSUPPORT for a
 * longer buffer), UDP connect (reaches the IPv4 peer, unless
 * IPV6_V6ONLY). */
static void test_ipv4_address_on_ipv6_socket(void **state)
{
	static const char *const what[] = {
	    "bind(v6, sockaddr_in, 16)",
	    "bind(v6, AF_INET, 28)",
	    "bindresvport(v6, sockaddr_in)",
	    "TCP connect(v6, sockaddr_in, 16)",
	    "TCP connect(v6, AF_INET, 28)",
	    "UDP connect(v6 v6only, sockaddr_in)",
	    "UDP sendto(v6 v6only, sockaddr_in)",
	};
	struct res r[7][2];
	struct sockaddr_storage big;
	int on = 1;

	(void)state;
	if (!have_ipv6) {
		skip();
	}
	for (int real = 0; real < 2; real++) {
		struct sockaddr_in sin = {.sin_family = AF_INET};
		int fd;

		sin.sin_addr.s_addr =
		    inet_addr(real ? "127.0.0.1" : "127.0.0.30");
		memset(&big, 0, sizeof(big));
		memcpy(&big, &sin, sizeof(sin));
		fd = sock(real, AF_INET6, SOCK_DGRAM);
		r[0][real] =
		    RES(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
		r[1][real] = RES(bind(fd, (struct sockaddr *)&big,
				      sizeof(struct sockaddr_in6)));
		close(fd);
		fd = sock(real, AF_INET6, SOCK_STREAM);
#ifdef HAVE_BINDRESVPORT
		r[2][real] = RES(bindresvport(fd, &sin));
#else
		r[2][real] = (struct res){0, 0}; /* (musl has none) */
#endif
		close(fd);
		fd = sock(real, AF_INET6, SOCK_STREAM);
		sin.sin_port = htons(9);
		r[3][real] =
		    RES(connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
		memcpy(&big, &sin, sizeof(sin));
		r[4][real] = RES(connect(fd, (struct sockaddr *)&big,
					 sizeof(struct sockaddr_in6)));
		close(fd);
		fd = sock(real, AF_INET6, SOCK_DGRAM);
		assert_int_equal(
		    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)),
		    0);
		r[5][real] =
		    RES(connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
		r[6][real] = RES((int)sendto(
		    fd, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin)));
		close(fd);
	}
	for (int i = 0; i < 7; i++) {
		same(what[i], r[i][1], r[i][0]);
	}
	assert_int_equal(r[0][0].err, EINVAL);
#ifdef HAVE_BINDRESVPORT
	assert_int_equal(r[2][0].err, EINVAL);
#endif
	assert_int_equal(r[3][0].err, EINVAL);
	assert_int_equal(r[4][0].err, EAFNOSUPPORT);
}

/* An IPv6 UDP socket connected to an AF_INET address talks to the IPv4
 * peer, which sees it at its IPv4 address; its peer name is v4-mapped.
 * The same with sendto() and an AF_INET address. */
static void test_ipv6_udp_to_ipv4_peer(void **state)
{
	char buf[64], a[64];

	(void)state;
	for (int real = 0; real < 2; real++) {
		struct sockaddr_storage ss, from;
		socklen_t len = swrap_test_sa(real ? "127.0.0.1" : "127.0.0.31",
					      real ? 0 : 6000, &ss);
		socklen_t flen = sizeof(from);
		int v4 = sock(real, AF_INET, SOCK_DGRAM);
		int v6;

		if (real && !have_ipv6) {
			close(v4);
			continue;
		}
		v6 = sock(real, AF_INET6, SOCK_DGRAM);
		assert_int_equal(bind(v4, (struct sockaddr *)&ss, len), 0);
		assert_int_equal(getsockname(v4, (struct sockaddr *)&ss, &len),
				 0);
		assert_int_equal(connect(v6, (struct sockaddr *)&ss, len), 0);
		assert_int_equal(send(v6, "hello", 5, 0), 5);
		assert_int_equal(recvfrom(v4, buf, sizeof(buf), 0,
					  (struct sockaddr *)&from, &flen),
				 5);
		assert_int_equal(from.ss_family, AF_INET);
		printf("%s: IPv4 peer sees %s\n", real ? "kernel" : "ours",
		       swrap_test_ntop(&from, a));
		assert_int_equal(strncmp(a, real ? "127.0.0.1:" : "127.0.0.30:",
					 real ? 10 : 11),
				 0);
		flen = sizeof(from);
		assert_int_equal(
		    getpeername(v6, (struct sockaddr *)&from, &flen), 0);
		assert_int_equal(from.ss_family, AF_INET6);
		assert_int_equal(strncmp(swrap_test_ntop(&from, a),
					 real ? "[::ffff:127.0.0.1]:"
					      : "[::ffff:127.0.0.31]:",
					 real ? 19 : 20),
				 0);
		/* sendto with an AF_INET address, unconnected socket */
		close(v6);
		v6 = sock(real, AF_INET6, SOCK_DGRAM);
		assert_int_equal(
		    sendto(v6, "again", 5, 0, (struct sockaddr *)&ss, len), 5);
		assert_int_equal(recv(v4, buf, sizeof(buf), 0), 5);
		assert_memory_equal(buf, "again", 5);
		close(v6);
		close(v4);
	}
}

/* A free UDP port: bound, then closed. */
/* A UDP socket bound to the test's loopback address, its port the
 * kernel's (or the emulation's) choice: *ss gets its address. */
static int bound_sock(bool real, int family, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	int fd = sock(real, family, SOCK_DGRAM);

	*len = swrap_test_sa(family == AF_INET
				 ? (real ? "127.0.0.1" : "127.0.0.30")
				 : (real ? "::1" : "fd00::5357:5f1e"),
			     0, ss);
	assert_int_equal(bind(fd, (struct sockaddr *)ss, *len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)ss, len), 0);
	return fd;
}

/* A port nobody holds (a socket that senders hold already, bound by
 * bound_sock() before, cannot be given it: a sender whose own port came
 * back from this would hear itself). */
static socklen_t free_port(bool real, int family, struct sockaddr_storage *ss)
{
	socklen_t len;

	close(bound_sock(real, family, ss, &len));
	return len;
}

/* poll() for input: 1 once the socket is readable or in error. */
static int readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms);
}

static int so_error(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &l), 0);
	return v;
}

/* A connected UDP socket whose peer's port has nobody: the datagram is
 * sent, then the port unreachable comes back as ECONNREFUSED, once: poll
 * wakes (POLLERR from the kernel, POLLIN here), and the next receive
 * (recv, read, recvmsg, a blocking one too), the next send or SO_ERROR
 * reports it, before anything queued. A socket that sent to an address
 * other than its peer, or that is not connected, hears nothing. IPv4 and
 * IPv6, each against the kernel. */
static void test_udp_port_unreachable(void **state)
{
	(void)state;
	for (int family = AF_INET; family != 0;
	     family = family == AF_INET ? AF_INET6 : 0) {
		for (int real = 0; real < 2; real++) {
			struct sockaddr_storage peer, other;
			socklen_t plen, olen;
			struct timeval tv = {.tv_sec =
						 cwrap_test_wait_ms() / 1000};
			char b[8];
			struct iovec iov = {.iov_base = b,
					    .iov_len = sizeof(b)};
			struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
			int fd;

			if (real && family == AF_INET6 && !have_ipv6) {
				continue;
			}
			printf("%s, %s\n", real ? "kernel" : "ours",
			       family == AF_INET ? "IPv4" : "IPv6");
			struct sockaddr_storage self;
			socklen_t slen;

			fd = bound_sock(real, family, &self, &slen);
			plen = free_port(real, family, &peer);
			do {
				olen = free_port(real, family, &other);
			} while (memcmp(&other, &peer, olen) == 0);
			assert_int_equal(
			    connect(fd, (struct sockaddr *)&peer, plen), 0);
			/* receive: the error, once, then nothing */
			assert_int_equal(send(fd, "a", 1, 0), 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			errno = 0;
			assert_int_equal(recv(fd, b, sizeof(b), MSG_DONTWAIT),
					 -1);
			assert_int_equal(errno, ECONNREFUSED);
			assert_int_equal(recv(fd, b, sizeof(b), MSG_DONTWAIT),
					 -1);
			assert_int_equal(errno, EAGAIN);
			assert_int_equal(readable(fd, 0), 0);
			/* read() and recvmsg() alike */
			assert_int_equal(send(fd, "b", 1, 0), 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			assert_int_equal(read(fd, b, sizeof(b)), -1);
			assert_int_equal(errno, ECONNREFUSED);
			assert_int_equal(send(fd, "c", 1, 0), 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			assert_int_equal(recvmsg(fd, &m, 0), -1);
			assert_int_equal(errno, ECONNREFUSED);
			/* a blocking receive does not wait for it */
			assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
						    &tv, sizeof(tv)),
					 0);
			assert_int_equal(send(fd, "d", 1, 0), 1);
			assert_int_equal(recv(fd, b, sizeof(b), 0), -1);
			assert_int_equal(errno, ECONNREFUSED);
			/* send: the second fails (and sends nothing), the
			 * third goes */
			assert_int_equal(send(fd, "e", 1, 0), 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			assert_int_equal(send(fd, "f", 1, 0), -1);
			assert_int_equal(errno, ECONNREFUSED);
			assert_int_equal(recv(fd, b, sizeof(b), MSG_DONTWAIT),
					 -1);
			assert_int_equal(errno, EAGAIN);
			/* SO_ERROR takes it, once */
			assert_int_equal(send(fd, "g", 1, 0), 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			assert_int_equal(so_error(fd), ECONNREFUSED);
			assert_int_equal(so_error(fd), 0);
			assert_int_equal(recv(fd, b, sizeof(b), MSG_DONTWAIT),
					 -1);
			assert_int_equal(errno, EAGAIN);
			/* to the peer by its address: the same */
			assert_int_equal(sendto(fd, "h", 1, 0,
						(struct sockaddr *)&peer, plen),
					 1);
			assert_int_equal(readable(fd, cwrap_test_wait_ms()), 1);
			assert_int_equal(so_error(fd), ECONNREFUSED);
			/* to another address: no error */
			assert_int_equal(sendto(fd, "i", 1, 0,
						(struct sockaddr *)&other,
						olen),
					 1);
			assert_int_equal(readable(fd, 200), 0);
			assert_int_equal(so_error(fd), 0);
			close(fd);
			/* not connected: no error */
			fd = bound_sock(real, family, &self, &slen);
			plen = free_port(real, family, &peer);
			assert_int_equal(sendto(fd, "j", 1, 0,
						(struct sockaddr *)&peer, plen),
					 1);
			assert_int_equal(readable(fd, 200), 0);
			assert_int_equal(so_error(fd), 0);
			close(fd);
		}
	}
}

struct waiter {
	int fd;
	ssize_t rc;
	int err;
};

static void *wait_recv(void *arg)
{
	struct waiter *w = arg;
	char b[8];

	w->rc = recv(w->fd, b, sizeof(b), 0);
	w->err = errno;
	return NULL;
}

/* A receive already waiting in another thread when the port unreachable
 * comes (a client with a reader thread) returns ECONNREFUSED, and no
 * empty datagram is left behind. */
static void test_udp_unreachable_wakes_receiver(void **state)
{
	(void)state;
	for (int real = 0; real < 2; real++) {
		struct sockaddr_storage self, peer;
		socklen_t slen, plen;
		struct timeval tv = {.tv_sec = cwrap_test_wait_ms() / 1000};
		/* (if a loaded machine has not let the receive start by then,
		 * it finds the error pending: the same outcome) */
		struct timespec settle = {0, 100 * 1000 * 1000};
		struct waiter w = {
		    .fd = bound_sock(real, AF_INET, &self, &slen)};
		pthread_t t;
		char b[8];

		plen = free_port(real, AF_INET, &peer);

		assert_int_equal(connect(w.fd, (struct sockaddr *)&peer, plen),
				 0);
		assert_int_equal(
		    setsockopt(w.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
		    0);
		assert_int_equal(pthread_create(&t, NULL, wait_recv, &w), 0);
		nanosleep(&settle, NULL); /* (the receive waits by now) */
		assert_int_equal(send(w.fd, "a", 1, 0), 1);
		assert_int_equal(pthread_join(t, NULL), 0);
		printf("%s: the waiting receive: %zd (%s)\n",
		       real ? "kernel" : "ours", w.rc, strerror(w.err));
		assert_int_equal(w.rc, -1);
		assert_int_equal(w.err, ECONNREFUSED);
		assert_int_equal(recv(w.fd, b, sizeof(b), MSG_DONTWAIT), -1);
		assert_int_equal(errno, EAGAIN);
		assert_int_equal(so_error(w.fd), 0);
		close(w.fd);
	}
}

/* socket() with types, flags and protocols the kernel does not know: the
 * kernel's errno, from the same order of checks. */
static void test_socket_unknown_as_kernel(void **state)
{
	static const struct {
		int family, type, protocol;
	} cases[] = {
	    {AF_INET, 0, 0},
	    {AF_INET, 4, 0}, /* SOCK_RDM */
	    {AF_INET, 6, 0}, /* SOCK_DCCP */
	    {AF_INET, 7, 0},
	    {AF_INET, 9, 0},
	    {AF_INET, 11, 0},
	    {AF_INET, 15, 0},
	    {AF_INET, SOCK_STREAM | 0x10, 0},
	    {AF_INET, SOCK_STREAM | SOCK_NONBLOCK | 0x100000, 0},
	    {AF_INET, SOCK_STREAM, -1},
	    {AF_INET, SOCK_STREAM, 263},
	    {AF_INET, SOCK_DGRAM, 300},
	    {AF_INET, SOCK_STREAM, IPPROTO_UDP},
	    {AF_INET, SOCK_DGRAM, IPPROTO_TCP},
	    {AF_INET, SOCK_RAW, 0},
	    {AF_INET, 4, 300},
	    {AF_INET6, 0, 0},
	    {AF_INET6, 10, 0}, /* SOCK_PACKET: no IPv6 packet sockets */
	    {AF_INET6, 12, 0},
	    {AF_INET6, SOCK_STREAM, IPPROTO_UDP},
	    {AF_INET6, SOCK_DGRAM, IPPROTO_ICMP},
	    {AF_INET6, SOCK_DGRAM, 263},
	    {200, SOCK_STREAM, 0},
	    {-1, SOCK_STREAM, 0},
	    {AF_UNIX, 7, 0},
	};
	char what[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct res k = RES(swrap_test_real_socket(
		    cases[i].family, cases[i].type, cases[i].protocol));
		struct res o = RES(
		    socket(cases[i].family, cases[i].type, cases[i].protocol));

		snprintf(what, sizeof(what), "socket(%d, %#x, %d)",
			 cases[i].family, (unsigned)cases[i].type,
			 cases[i].protocol);
		assert_true(k.rc < 0);
		same(what, k, o);
	}
}

/* Kinds that would be made on the real network stack (raw, packet, ICMP
 * datagrams, SCTP, UDP-Lite, MPTCP) are refused with EPROTONOSUPPORT,
 * with one debug line, where the kernel (as root at least) would make
 * one. */
static void test_not_emulated_refused(void **state)
{
	static const struct {
		int family, type, protocol;
	} cases[] = {
	    {AF_INET, SOCK_RAW, IPPROTO_ICMP},
	    {AF_INET, SOCK_RAW, IPPROTO_RAW},
	    {AF_INET, SOCK_RAW, IPPROTO_TCP},
	    {AF_INET6, SOCK_RAW, IPPROTO_ICMPV6},
	    {AF_INET, SOCK_DGRAM, IPPROTO_ICMP},
	    {AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6},
	    {AF_INET, SOCK_SEQPACKET, 0},
	    {AF_INET6, SOCK_SEQPACKET, IPPROTO_SCTP},
	    {AF_INET, SOCK_STREAM, IPPROTO_SCTP},
	    {AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE},
	    {AF_INET, SOCK_STREAM, 262}, /* IPPROTO_MPTCP */
	    {AF_INET, 10, 0},		 /* SOCK_PACKET */
	    {AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP},
	};
	char *err_dir = cwrap_test_mkdtemp("swrap-err");
	char *err_path = cwrap_test_path(err_dir, "err");
	int saved = dup(2), efd;
	size_t lines = 0;
	char *text, *p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int k = swrap_test_real_socket(cases[i].family, cases[i].type,
					       cases[i].protocol);

		printf("socket(%d, %#x, %d): kernel %s\n", cases[i].family,
		       (unsigned)cases[i].type, cases[i].protocol,
		       k >= 0 ? "makes one" : strerror(errno));
		if (k >= 0) {
			close(k);
		}
	}
	if (getuid() == 0) {
		int k = swrap_test_real_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);

		assert_true(k >= 0); /* what the wrapper must not let out */
		close(k);
	}
	efd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(efd >= 0);
	assert_int_equal(setenv("SOCKET_WRAPPER_DEBUGLEVEL", "2", 1), 0);
	assert_int_equal(dup2(efd, 2), 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 0;
		assert_int_equal(
		    socket(cases[i].family, cases[i].type, cases[i].protocol),
		    -1);
		assert_int_equal(errno, EPROTONOSUPPORT);
	}
	assert_int_equal(dup2(saved, 2), 2);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_DEBUGLEVEL"), 0);
	close(saved);
	close(efd);
	text = cwrap_test_read_file(err_path, NULL);
	assert_non_null(text);
	printf("%s", text);
	for (p = text; (p = strstr(p, "not emulated, refused")) != NULL; p++) {
		lines++;
	}
	assert_int_equal(lines, sizeof(cases) / sizeof(cases[0]));
	free(text);
	free(err_path);
	cwrap_test_rmtree(err_dir);
	free(err_dir);
}

/* SOCKET_WRAPPER_MAX_SOCKETS counts descriptors of emulated sockets:
 * past it, socket(), accept() and dup() fail with ENFILE (upstream's
 * errno); a connection waiting to be accepted stays there; dup2() onto
 * an emulated socket's descriptor replaces it; raising the limit with
 * setenv() takes effect at once. Runs first, with no other socket open. */
static void test_max_sockets_enfile(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.30", 7070, &ss);
	int l, c1, c2, a1, a2, d;

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_MAX_SOCKETS", "4", 1), 0);
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(l, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(l, 4), 0);
	c1 = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c1, (struct sockaddr *)&ss, len), 0);
	a1 = accept(l, NULL, NULL);
	assert_true(a1 >= 0);
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(c2 >= 0);
	assert_int_equal(connect(c2, (struct sockaddr *)&ss, len), 0);
	/* four: l, c1, a1, c2 */
	errno = 0;
	assert_int_equal(socket(AF_INET6, SOCK_DGRAM, 0), -1);
	assert_int_equal(errno, ENFILE);
	errno = 0;
	assert_int_equal(accept(l, NULL, NULL), -1);
	assert_int_equal(errno, ENFILE);
	errno = 0;
	assert_int_equal(dup(c1), -1);
	assert_int_equal(errno, ENFILE);
	errno = 0;
	assert_int_equal(fcntl(c1, F_DUPFD_CLOEXEC, 0), -1);
	assert_int_equal(errno, ENFILE);
	/* Other descriptors are not counted. */
	d = dup(0);
	assert_true(d >= 0);
	close(d);
	d = swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(d >= 0);
	close(d);
	/* Replacing one emulated descriptor by another: allowed. */
	assert_int_equal(dup2(c1, a1), a1);
	close(a1);
	/* Room again: the waiting connection is accepted. */
	a2 = accept(l, NULL, NULL);
	assert_true(a2 >= 0);
	swrap_test_write_all(c2, "ok", 2);
	{
		char buf[2];

		swrap_test_read_all(a2, buf, 2);
		assert_memory_equal(buf, "ok", 2);
	}
	assert_int_equal(socket(AF_INET, SOCK_DGRAM, 0), -1);
	assert_int_equal(setenv("SOCKET_WRAPPER_MAX_SOCKETS", "6", 1), 0);
	d = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(d >= 0);
	close(d);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_MAX_SOCKETS"), 0);
	close(a2);
	close(c2);
	close(c1);
	close(l);
}

/* An option of a level the IP stack does not know (SOL_QUIC 288, SOL_TLS
 * 282 without its ULP, a number of nobody's) is ENOPROTOOPT on a TCP or
 * UDP socket, for getsockopt() and setsockopt() alike; a unix socket
 * says EOPNOTSUPP, which is not the emulated socket's answer. */
static void test_unknown_level_as_kernel(void **state)
{
	static const int levels[] = {288, 282, 4242};
	static const int types[] = {SOCK_STREAM, SOCK_DGRAM};
	size_t t, i;

	(void)state;
	for (t = 0; t < 2; t++) {
		int k = sock(true, AF_INET, types[t]);
		int o = sock(false, AF_INET, types[t]);

		for (i = 0; i < 3; i++) {
			int v = 1, w = 1;
			socklen_t kl = sizeof(v), ol = sizeof(w);
			char what[64];

			snprintf(what, sizeof(what), "type %d getsockopt(%d, 1)",
				 types[t], levels[i]);
			same(what, RES(getsockopt(k, levels[i], 1, &v, &kl)),
			     RES(getsockopt(o, levels[i], 1, &w, &ol)));
			snprintf(what, sizeof(what), "type %d setsockopt(%d, 1)",
				 types[t], levels[i]);
			same(what,
			     RES(setsockopt(k, levels[i], 1, &v, sizeof(v))),
			     RES(setsockopt(o, levels[i], 1, &w, sizeof(w))));
		}
		close(k);
		close(o);
	}
}

/* Nonblocking connects to a listener of backlog 1 that has not accepted
 * yet, more of them than its queue holds: the kernel answers each with
 * EINPROGRESS (the handshake of those beyond the queue is retried, the
 * client sees them connected), never EAGAIN, and the server accepts them
 * once it accepts; each carries its client's byte. The emulation's
 * unix listener queued two and refused the rest with EAGAIN (a TCP
 * client then took an unconnected socket for a connected one). */
static void full_backlog(bool real, int n)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(real ? "127.0.0.1" : "127.0.0.30",
				      real ? 0 : 4711, &ss);
	int l = sock(real, AF_INET, SOCK_STREAM), c[8], a[8], i;
	char b;

	assert_int_equal(bind(l, (struct sockaddr *)&ss, len), 0);
	assert_true(n <= (int)(sizeof(c) / sizeof(c[0])));
	assert_int_equal(listen(l, 1), 0);
	len = sizeof(ss);
	assert_int_equal(getsockname(l, (struct sockaddr *)&ss, &len), 0);
	for (i = 0; i < n; i++) {
		int rc;

		c[i] = sock(real, AF_INET, SOCK_STREAM | SOCK_NONBLOCK);
		errno = 0;
		rc = connect(c[i], (struct sockaddr *)&ss, len);
		printf("%s connect %d: %d (%s)\n", real ? "kernel" : "ours", i,
		       rc, rc < 0 ? strerror(errno) : "ok");
		assert_true(rc == 0 || errno == EINPROGRESS);
	}
	for (i = 0; i < n; i++) {
		struct pollfd p = {.fd = l, .events = POLLIN};

		/* (the kernel's retried handshakes take a second or more) */
		assert_int_equal(poll(&p, 1, 60000), 1);
		a[i] = accept(l, NULL, NULL);
		assert_true(a[i] >= 0);
	}
	for (i = 0; i < n; i++) {
		struct pollfd p = {.fd = c[i], .events = POLLOUT};
		int err = -1;
		socklen_t elen = sizeof(err);

		assert_int_equal(poll(&p, 1, 60000), 1);
		assert_int_equal(
		    getsockopt(c[i], SOL_SOCKET, SO_ERROR, &err, &elen), 0);
		assert_int_equal(err, 0);
		b = (char)('a' + i);
		assert_int_equal(write(c[i], &b, 1), 1);
	}
	for (i = 0; i < n; i++) {
		struct pollfd p = {.fd = a[i], .events = POLLIN};

		assert_int_equal(poll(&p, 1, 60000), 1);
		assert_int_equal(read(a[i], &b, 1), 1);
		assert_true(b >= 'a' && b < 'a' + n);
		close(a[i]);
		close(c[i]);
	}
	close(l);
}

static void test_full_backlog_nonblocking_connect(void **state)
{
	(void)state;
	/* (three for the kernel, whose third handshake is retried after a
	 * second; beyond, its retries are slower and lost ones uncertain) */
	full_backlog(true, 3);
	full_backlog(false, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_max_sockets_enfile),
	    cmocka_unit_test(test_bind_af_unspec),
	    cmocka_unit_test(test_wildcard_then_connect),
	    cmocka_unit_test(test_sent_unbound_name),
	    cmocka_unit_test(test_ipv4_address_on_ipv6_socket),
	    cmocka_unit_test(test_ipv6_udp_to_ipv4_peer),
	    cmocka_unit_test(test_udp_port_unreachable),
	    cmocka_unit_test(test_udp_unreachable_wakes_receiver),
	    cmocka_unit_test(test_socket_unknown_as_kernel),
	    cmocka_unit_test(test_not_emulated_refused),
	    cmocka_unit_test(test_full_backlog_nonblocking_connect),
	    cmocka_unit_test(test_unknown_level_as_kernel),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
