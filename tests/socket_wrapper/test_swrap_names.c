/*
 * Names, errors and options of emulated sockets: on-disk names, wildcard
 * and automatic binds, privileged ports, EADDRINUSE / stale files,
 * ECONNREFUSED, UDP to nobody and to the broadcast address, connected
 * UDP, socket options, nonblocking connect, poll/select/epoll, dup
 * sharing, descriptors closed behind the wrapper's back, the public
 * functions. Default interface 30.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "socket_wrapper.h"
#include "swrap_test.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("30");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

/* The next connection on listener l (asserts). */
static int accepted(int l)
{
	int s = accept(l, NULL, NULL);

	assert_true(s >= 0);
	return s;
}

static void test_enabled(void **state)
{
	(void)state;
	assert_true(socket_wrapper_enabled());
}

static void test_on_disk_names(void **state)
{
	int a = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 7);
	int b = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 53);
	int c = swrap_test_bound(SOCK_STREAM, "fd00::5357:5f0a", 22);
	int d = swrap_test_bound(SOCK_DGRAM, "fd00::5357:5fc8", 0x1234);

	(void)state;
	assert_int_equal(listen(a, 5), 0);
	assert_true(swrap_test_has_socket(dir, "T0A0007"));
	assert_true(swrap_test_has_socket(dir, "U0A0035"));
	assert_true(swrap_test_has_socket(dir, "X0A0016"));
	assert_true(swrap_test_has_socket(dir, "YC81234"));
	close(a);
	close(b);
	close(c);
	close(d);
	/* The process that bound a name removes it on the last close. */
	assert_false(swrap_test_has_socket(dir, "T0A0007"));
	assert_false(swrap_test_has_socket(dir, "YC81234"));
}

static void test_unbound_and_wildcard(void **state)
{
	char buf[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int fd6 = socket(AF_INET6, SOCK_DGRAM, 0);

	(void)state;
	assert_string_equal(swrap_test_name(fd, buf, false), "0.0.0.0:0");
	assert_string_equal(swrap_test_name(fd6, buf, false), "[::]:0");
	close(fd);
	close(fd6);
	/* Wildcard: listens on the default interface, reports 0.0.0.0. */
	fd = swrap_test_bound(SOCK_STREAM, "0.0.0.0", 8080);
	assert_string_equal(swrap_test_name(fd, buf, false), "0.0.0.0:8080");
	assert_true(swrap_test_has_socket(dir, "T1E1F90"));
	assert_int_equal(listen(fd, 5), 0);
	{
		int c = swrap_test_connect(SOCK_STREAM, "127.0.0.30", 8080);
		int s = accept(fd, NULL, NULL);

		assert_true(s >= 0);
		assert_string_equal(swrap_test_name(s, buf, false),
				    "127.0.0.30:8080");
		close(s);
		close(c);
	}
	close(fd);
}

static void test_port_zero_and_autobind(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[64];
	unsigned port;
	int fd = swrap_test_bound(SOCK_STREAM, "127.0.0.40", 0);
	int c;

	(void)state;
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	assert_in_range(port, 10000, 60000);
	assert_int_equal(listen(fd, 5), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.40", (int)port);
	len = sizeof(ss);
	getsockname(c, (struct sockaddr *)&ss, &len);
	assert_in_range(ntohs(((struct sockaddr_in *)&ss)->sin_port), 10000,
			60000);
	swrap_test_ntop(&ss, buf);
	assert_memory_equal(buf, "127.0.0.30:", 11);
	{
		char peer[64];
		int s = accept(fd, NULL, NULL);

		/* The server sees the client's own emulated address. */
		assert_string_equal(swrap_test_name(s, peer, true), buf);
		close(s);
	}
	close(c);
	close(fd);
}

static void test_errors(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, fd2;

	(void)state;
	/* A live listener: EADDRINUSE. */
	fd = swrap_test_bound(SOCK_STREAM, "127.0.0.11", 80);
	assert_int_equal(listen(fd, 5), 0);
	fd2 = socket(AF_INET, SOCK_STREAM, 0);
	len = swrap_test_sa("127.0.0.11", 80, &ss);
	assert_int_equal(bind(fd2, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EADDRINUSE);
	/* Finding that out queued no connection on the listener. */
	{
		int fl = fcntl(fd, F_GETFL), fd3, fd4, c;

		assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
		assert_int_equal(accept(fd, NULL, NULL), -1);
		assert_int_equal(errno, EAGAIN);
		assert_int_equal(fcntl(fd, F_SETFL, fl), 0);
		/* A socket bound but not listening yet keeps its name, as
		 * in the kernel: EADDRINUSE, and it listens afterwards. */
		fd3 = swrap_test_bound(SOCK_STREAM, "127.0.0.11", 81);
		fd4 = socket(AF_INET, SOCK_STREAM, 0);
		len = swrap_test_sa("127.0.0.11", 81, &ss);
		assert_int_equal(bind(fd4, (struct sockaddr *)&ss, len), -1);
		assert_int_equal(errno, EADDRINUSE);
		assert_int_equal(listen(fd3, 1), 0);
		c = swrap_test_connect(SOCK_STREAM, "127.0.0.11", 81);
		close(c);
		close(fd3);
		close(fd4);
		len = swrap_test_sa("127.0.0.11", 80, &ss);
	}
	/* Already bound: EINVAL. */
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EINVAL);
	close(fd);
	/* Not an emulated address. */
	len = swrap_test_sa("192.168.7.7", 80, &ss);
	assert_int_equal(bind(fd2, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_int_equal(connect(fd2, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, ENETUNREACH);
	/* Wrong family, short address. */
	len = swrap_test_sa("fd00::5357:5f0b", 80, &ss);
	assert_int_equal(bind(fd2, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EAFNOSUPPORT);
	len = swrap_test_sa("127.0.0.11", 80, &ss);
	assert_int_equal(bind(fd2, (struct sockaddr *)&ss, 4), -1);
	assert_int_equal(errno, EINVAL);
	/* Nobody listens. */
	len = swrap_test_sa("127.0.0.12", 81, &ss);
	assert_int_equal(connect(fd2, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, ECONNREFUSED);
	/* Not connected. */
	len = sizeof(ss);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(getpeername(fd, (struct sockaddr *)&ss, &len), -1);
	assert_int_equal(errno, ENOTCONN);
	/* Protocols that do not match the type. */
	assert_int_equal(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
	close(fd);
	close(fd2);
}

static void test_stale_file_reused(void **state)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	int fd;

	(void)state;
	/* A socket file left by a dead process. */
	snprintf(un.sun_path, sizeof(un.sun_path), "%s/T0D0019", dir);
	assert_int_equal(bind(u, (struct sockaddr *)&un, sizeof(un)), 0);
	close(u);
	assert_true(swrap_test_has_socket(dir, "T0D0019"));
	fd = swrap_test_bound(SOCK_STREAM, "127.0.0.13", 25);
	assert_int_equal(listen(fd, 1), 0);
	close(fd);
}

static int get_int(int fd, int level, int name);

static void path_of(const char *name, struct sockaddr_un *un)
{
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	snprintf(un->sun_path, sizeof(un->sun_path), "%s/%s", dir, name);
}

static ino_t inode_of(const char *name)
{
	struct sockaddr_un un;
	struct stat st;

	path_of(name, &un);
	assert_int_equal(stat(un.sun_path, &st), 0);
	return st.st_ino;
}

/* A listener of ours gives its socket file a second name, ".T0A0007",
 * through which our clients connect; both names go with the socket. */
static void test_listener_marker(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 8), c, s;
	char buf[64];

	(void)state;
	assert_false(swrap_test_has_socket(dir, ".T0A0008"));
	assert_int_equal(listen(l, 5), 0);
	assert_true(swrap_test_has_socket(dir, ".T0A0008"));
	assert_int_equal(inode_of(".T0A0008"), inode_of("T0A0008"));
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 8);
	s = accepted(l);
	assert_string_equal(swrap_test_name(s, buf, true),
			    swrap_test_name(c, buf + 32, false));
	assert_string_equal(swrap_test_name(c, buf, true), "127.0.0.10:8");
	close(c);
	close(s);
	close(l);
	assert_false(swrap_test_has_socket(dir, "T0A0008"));
	assert_false(swrap_test_has_socket(dir, ".T0A0008"));
}

/* The process that bound the name removes the marker too, even when a
 * forked child was the one that called listen(). */
static void test_marker_of_forked_listener(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 11), status = -1;
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		_exit(listen(l, 5) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_true(swrap_test_has_socket(dir, "T0A000B"));
	assert_true(swrap_test_has_socket(dir, ".T0A000B"));
	close(l);
	assert_false(swrap_test_has_socket(dir, "T0A000B"));
	assert_false(swrap_test_has_socket(dir, ".T0A000B"));
}

/* A client that binds its own address first connects from it (its name
 * is a file, as for any bound socket). */
static void test_bound_client(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 12);
	int c = swrap_test_bound(SOCK_STREAM, "127.0.0.21", 0), s;
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 12, &ss);
	char buf[64], mine[64];

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	swrap_test_name(c, mine, false);
	assert_true(strncmp(mine, "127.0.0.21:", 11) == 0);
	snprintf(buf, sizeof(buf), "T15%04X", atoi(mine + 11));
	assert_true(swrap_test_has_socket(dir, buf));
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), 0);
	s = accepted(l);
	assert_string_equal(swrap_test_name(s, buf, true), mine);
	assert_string_equal(swrap_test_name(c, buf, true), "127.0.0.10:12");
	close(c);
	close(s);
	close(l);
}

/* A listener of ours whose marker is gone (removed by hand, or a directory
 * where hard links fail) is still found, through its sticky mark; a name
 * that is not a socket refuses. */
static void test_listener_without_marker(void **state)
{
	struct sockaddr_un mk;
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 13), c, s, f;
	char buf[64], name[64];

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	path_of(".T0A000D", &mk);
	assert_int_equal(unlink(mk.sun_path), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 13);
	s = accepted(l);
	assert_string_equal(swrap_test_name(s, buf, true),
			    swrap_test_name(c, name, false));
	close(c);
	close(s);
	close(l);

	path_of("T0A000E", &mk);
	f = open(mk.sun_path, O_CREAT | O_WRONLY, 0600);
	assert_true(f >= 0);
	close(f);
	{
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa("127.0.0.10", 14, &ss);

		c = socket(AF_INET, SOCK_STREAM, 0);
		assert_int_equal(connect(c, (struct sockaddr *)&ss, len), -1);
		assert_int_equal(errno, ECONNREFUSED);
		close(c);
	}
	unlink(mk.sun_path);
}

/* A plain unix client (no name) of a listener of ours is seen as port 0 of
 * the default interface. */
static void test_plain_unix_client(void **state)
{
	struct sockaddr_un un;
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 15), s;
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	char buf[64];

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	path_of("T0A000F", &un);
	assert_int_equal(connect(u, (struct sockaddr *)&un, sizeof(un)), 0);
	s = accepted(l);
	assert_string_equal(swrap_test_name(s, buf, true), "127.0.0.30:0");
	assert_string_equal(swrap_test_name(s, buf, false), "127.0.0.10:15");
	assert_int_equal(write(u, "x", 1), 1);
	assert_int_equal(read(s, buf, 1), 1);
	close(u);
	close(s);
	close(l);
}

/* A listener that is not ours (upstream's socket_wrapper, or a plain unix
 * socket on the name) gets a client bound to a file it can parse, with
 * the flags and options the program set before connect(). A marker left
 * by a dead socket does not mislead the client. */
static void test_foreign_listener(void **state)
{
	struct sockaddr_un un, dead, got;
	socklen_t glen = sizeof(got);
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 9, &ss);
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	int d = socket(AF_UNIX, SOCK_STREAM, 0);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int s, buf = 16384, fl;
	char name[64], want[64];

	(void)state;
	path_of("T0A0009", &un);
	assert_int_equal(bind(u, (struct sockaddr *)&un, sizeof(un)), 0);
	assert_int_equal(listen(u, 5), 0);
	/* A stale marker: a hard link to a socket nobody listens on. */
	path_of("dead", &dead);
	assert_int_equal(bind(d, (struct sockaddr *)&dead, sizeof(dead)), 0);
	close(d);
	path_of(".T0A0009", &got);
	assert_int_equal(link(dead.sun_path, got.sun_path), 0);

	assert_int_equal(
	    setsockopt(c, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)), 0);
	fl = fcntl(c, F_GETFL);
	assert_int_equal(fcntl(c, F_SETFL, fl | O_NONBLOCK), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), 0);
	s = accept(u, (struct sockaddr *)&got, &glen);
	assert_true(s >= 0);
	/* The peer is a file named after the client's address. */
	swrap_test_name(c, name, false);
	assert_true(strncmp(name, "127.0.0.30:", 11) == 0);
	snprintf(want, sizeof(want), "%s/T1E%04X", dir, atoi(name + 11));
	assert_string_equal(got.sun_path, want);
	assert_true(fcntl(c, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(c, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(get_int(c, SOL_SOCKET, SO_RCVBUF), buf * 2);
	assert_string_equal(swrap_test_name(c, name, true), "127.0.0.10:9");
	swrap_test_write_all(c, "hi", 2);
	assert_int_equal(read(s, name, sizeof(name)), 2);
	close(c);
	close(s);
	close(u);
	unlink(un.sun_path);
	unlink(dead.sun_path);
	path_of(".T0A0009", &got);
	unlink(got.sun_path);
}

/* A listener of ours replaces a marker left behind by a dead one. */
static void test_stale_marker_replaced(void **state)
{
	struct sockaddr_un dead, mk;
	int d = socket(AF_UNIX, SOCK_STREAM, 0), l, c, s;

	(void)state;
	path_of("dead2", &dead);
	path_of(".T0A000A", &mk);
	assert_int_equal(bind(d, (struct sockaddr *)&dead, sizeof(dead)), 0);
	close(d);
	assert_int_equal(link(dead.sun_path, mk.sun_path), 0);
	l = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 10);
	assert_int_equal(listen(l, 5), 0);
	assert_int_equal(inode_of(".T0A000A"), inode_of("T0A000A"));
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 10);
	s = accepted(l);
	close(c);
	close(s);
	close(l);
	assert_false(swrap_test_has_socket(dir, ".T0A000A"));
	unlink(dead.sun_path);
}

/* r1 and r2 each got "all", from an address starting with `from_prefix`. */
static void expect_all(int r1, int r2, const char *from_prefix)
{
	struct sockaddr_storage from;
	socklen_t flen;
	char buf[16], name[64];

	for (int i = 0; i < 2; i++) {
		flen = sizeof(from);
		memset(buf, 0, sizeof(buf));
		assert_int_equal(recvfrom(i == 0 ? r1 : r2, buf, sizeof(buf), 0,
					  (struct sockaddr *)&from, &flen),
				 3);
		assert_string_equal(buf, "all");
		assert_memory_equal(swrap_test_ntop(&from, name), from_prefix,
				    strlen(from_prefix));
	}
}

static void test_udp_to_nobody_and_broadcast(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[16];
	int r1 = swrap_test_bound(SOCK_DGRAM, "127.0.0.11", 500);
	int r2 = swrap_test_bound(SOCK_DGRAM, "127.0.0.12", 500);
	int other = swrap_test_bound(SOCK_DGRAM, "127.0.0.13", 501);
	int s = socket(AF_INET, SOCK_DGRAM, 0), on = 1;

	(void)state;
	len = swrap_test_sa("127.0.0.99", 999, &ss);
	assert_int_equal(sendto(s, "lost", 4, 0, (struct sockaddr *)&ss, len),
			 4);
	len = swrap_test_sa("127.255.255.255", 500, &ss);
	assert_int_equal(sendto(s, "all", 3, 0, (struct sockaddr *)&ss, len),
			 -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(
	    setsockopt(s, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)), 0);
	assert_int_equal(sendto(s, "all", 3, 0, (struct sockaddr *)&ss, len),
			 3);
	expect_all(r1, r2, "127.0.0.30:");
	assert_int_equal(recv(other, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(r1);
	close(r2);
	close(other);
	close(s);
}

/* Ports below 1024 bind for any user: where the kernel refuses this user
 * port 7 on 127.0.0.1 (EACCES), the emulated bind of 127.0.0.10:7 and
 * [fd00::5357:5f0a]:7 succeeds. */
static void test_privileged_port_for_any_user(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.1", 7, &ss);
	int k = swrap_test_real_socket(AF_INET, SOCK_STREAM, 0), rc, s;

	(void)state;
	assert_true(k >= 0);
	rc = bind(k, (struct sockaddr *)&ss, len);
	print_message("uid %u: the kernel's bind of 127.0.0.1:7: %s\n",
		      (unsigned)getuid(), rc == 0 ? "ok" : strerror(errno));
	{
		FILE *f =
		    fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "r");
		int start = 1024;

		if (f != NULL) {
			if (fscanf(f, "%d", &start) != 1) {
				start = 1024;
			}
			fclose(f);
		}
		if (getuid() != 0 && start > 7) {
			/* what the wrapper spares the user */
			assert_int_equal(rc, -1);
			assert_int_equal(errno, EACCES);
		}
	}
	close(k);
	s = swrap_test_bound(SOCK_STREAM, "127.0.0.10", 7);
	close(s);
	s = swrap_test_bound(SOCK_DGRAM, "fd00::5357:5f0a", 7);
	close(s);
}

/* With SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0 the broadcast address is
 * 10.255.255.255: every interface with a socket on the port gets it. */
static void test_broadcast_other_network(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int r1, r2, s, on = 1;

	(void)state;
	setenv("SOCKET_WRAPPER_IPV4_NETWORK", "10.53.57.0", 1);
	r1 = swrap_test_bound(SOCK_DGRAM, "10.53.57.11", 600);
	r2 = swrap_test_bound(SOCK_DGRAM, "10.53.57.12", 600);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(
	    setsockopt(s, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)), 0);
	len = swrap_test_sa("10.255.255.255", 600, &ss);
	assert_int_equal(sendto(s, "all", 3, 0, (struct sockaddr *)&ss, len),
			 3);
	expect_all(r1, r2, "10.53.57.30:");
	close(r1);
	close(r2);
	close(s);
	unsetenv("SOCKET_WRAPPER_IPV4_NETWORK");
}

static void test_connected_udp(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.14", 53, &ss);
	int srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.14", 53);
	int c = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[16], a[64], b[64];
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);

	(void)state;
	assert_int_equal(send(c, "x", 1, 0), -1);
	assert_int_equal(errno, EDESTADDRREQ);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), 0);
	assert_string_equal(swrap_test_name(c, a, true), "127.0.0.14:53");
	assert_int_equal(write(c, "query", 5), 5);
	assert_int_equal(
	    recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen),
	    5);
	assert_string_equal(swrap_test_ntop(&from, a),
			    swrap_test_name(c, b, false));
	assert_int_equal(
	    sendto(srv, "answer", 6, 0, (struct sockaddr *)&from, flen), 6);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(read(c, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "answer");
	/* AF_UNSPEC dissolves the association. */
	ss.ss_family = AF_UNSPEC;
	assert_int_equal(connect(c, (struct sockaddr *)&ss, sizeof(ss)), 0);
	flen = sizeof(from);
	assert_int_equal(getpeername(c, (struct sockaddr *)&from, &flen), -1);
	assert_int_equal(errno, ENOTCONN);
	close(c);
	close(srv);
}

static int get_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	assert_int_equal(getsockopt(fd, level, name, &v, &l), 0);
	assert_int_equal(l, sizeof(int));
	return v;
}

static void test_sockopts(void **state)
{
	int t = socket(AF_INET, SOCK_STREAM, 0);
	int u = socket(AF_INET6, SOCK_DGRAM, 0);
	int on = 1, tos = 0x10;

	(void)state;
	assert_int_equal(get_int(t, SOL_SOCKET, SO_TYPE), SOCK_STREAM);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_DOMAIN), AF_INET);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_PROTOCOL), IPPROTO_TCP);
	assert_int_equal(get_int(u, SOL_SOCKET, SO_TYPE), SOCK_DGRAM);
	assert_int_equal(get_int(u, SOL_SOCKET, SO_DOMAIN), AF_INET6);
	assert_int_equal(get_int(u, SOL_SOCKET, SO_PROTOCOL), IPPROTO_UDP);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_ERROR), 0);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_ACCEPTCONN), 0);
	assert_int_equal(get_int(t, IPPROTO_TCP, TCP_NODELAY), 0);
	assert_int_equal(
	    setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)), 0);
	assert_int_equal(get_int(t, IPPROTO_TCP, TCP_NODELAY), 1);
	/* SO_REUSEPORT: recorded (the kernel refuses it on unix sockets). */
	assert_int_equal(
	    setsockopt(t, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)), 0);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_REUSEPORT), 1);
	assert_int_equal(
	    setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)), 0);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_REUSEADDR), 1);
	assert_int_equal(
	    setsockopt(t, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)), 0);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_KEEPALIVE), 1);
	/* IP options remembered. */
	assert_int_equal(get_int(t, IPPROTO_IP, IP_TTL), 64);
	assert_int_equal(setsockopt(t, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)),
			 0);
	assert_int_equal(get_int(t, IPPROTO_IP, IP_TOS), 0x10);
	assert_int_equal(
	    setsockopt(t, IPPROTO_TCP, TCP_KEEPIDLE, &tos, sizeof(tos)), 0);
	assert_int_equal(get_int(t, IPPROTO_TCP, TCP_KEEPIDLE), 0x10);
	/* Levels that do not fit the socket. */
	assert_int_equal(
	    setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)), -1);
	assert_int_equal(errno, ENOPROTOOPT);
	assert_int_equal(
	    setsockopt(t, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)), -1);
	assert_int_equal(errno, ENOPROTOOPT);
	assert_int_equal(get_int(u, IPPROTO_IPV6, IPV6_V6ONLY), 0);
	assert_int_equal(
	    setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)), 0);
	assert_int_equal(get_int(u, IPPROTO_IPV6, IPV6_V6ONLY), 1);
	assert_int_equal(setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &on, 1), -1);
	assert_int_equal(errno, EINVAL);
	/* Listening. */
	assert_int_equal(listen(t, 3), 0);
	assert_int_equal(get_int(t, SOL_SOCKET, SO_ACCEPTCONN), 1);
	close(t);
	close(u);
}

static void test_nonblocking_connect(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.15", 443);
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.15", 443, &ss);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct pollfd p = {.fd = c, .events = POLLOUT};

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	/* Complete at once (0) or in progress: both are what TCP may say. */
	if (connect(c, (struct sockaddr *)&ss, len) != 0) {
		assert_int_equal(errno, EINPROGRESS);
	}
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_true(p.revents & POLLOUT);
	assert_int_equal(get_int(c, SOL_SOCKET, SO_ERROR), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EISCONN);
	close(c);

	/* Refused: EINPROGRESS, then SO_ERROR says so (once). */
	len = swrap_test_sa("127.0.0.15", 444, &ss);
	c = socket(AF_INET, SOCK_STREAM, 0);
	fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EINPROGRESS);
	p.fd = c;
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(get_int(c, SOL_SOCKET, SO_ERROR), ECONNREFUSED);
	assert_int_equal(get_int(c, SOL_SOCKET, SO_ERROR), 0);
	close(c);
	/* Or a second connect() reports it. */
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EINPROGRESS);
	assert_int_equal(connect(c, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, ECONNREFUSED);
	close(c);
	close(l);
}

static void test_poll_select_epoll(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.16", 21);
	int c, s, ep;
	struct epoll_event ev = {.events = EPOLLIN}, out;
	fd_set rfds;
	struct timeval tv = {.tv_sec = 1};
	struct pollfd p;
	char ch;

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.16", 21);
	FD_ZERO(&rfds);
	FD_SET(l, &rfds);
	assert_int_equal(select(l + 1, &rfds, NULL, NULL, &tv), 1);
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	assert_true(s >= 0);
	assert_true(fcntl(s, F_GETFD) & FD_CLOEXEC);
	ep = epoll_create1(0);
	ev.data.fd = s;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	assert_int_equal(write(c, "!", 1), 1);
	assert_int_equal(epoll_wait(ep, &out, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(out.data.fd, s);
	p.fd = s;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(read(s, &ch, 1), 1);
	close(ep);
	close(s);
	close(c);
	close(l);
}

static void test_dup_shares_record(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.17", 110);
	int c, d1, d2, d3, d4;
	char a[64], b[64];

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.17", 110);
	d1 = dup(c);
	d2 = dup2(c, 100);
	d3 = dup3(c, 101, O_CLOEXEC);
	d4 = fcntl(c, F_DUPFD_CLOEXEC, 200);
	assert_int_equal(d2, 100);
	assert_int_equal(d3, 101);
	assert_true(d4 >= 200);
	assert_int_equal(close(c), 0);
	assert_string_equal(swrap_test_name(d1, a, true), "127.0.0.17:110");
	assert_string_equal(swrap_test_name(d2, b, false),
			    swrap_test_name(d3, a, false));
	assert_string_equal(swrap_test_name(d4, b, true), "127.0.0.17:110");
	/* dup2 over an emulated socket replaces it. */
	{
		int p[2];

		assert_int_equal(pipe(p), 0);
		assert_int_equal(dup2(p[0], d2), d2);
		assert_int_equal(getsockname(d2, (struct sockaddr *)a,
					     &(socklen_t){sizeof(a)}),
				 -1);
		assert_int_equal(errno, ENOTSOCK);
		close(p[0]);
		close(p[1]);
	}
	close(d1);
	close(d2);
	close(d3);
	close(d4);
	close(l);
}

/* Close fd the way libc's internals do, not through close() (syscall()
 * is the wrapper's too): fclose() of a stream made on it. */
static void close_behind_back(int fd)
{
	FILE *f = fdopen(fd, "r");

	assert_non_null(f);
	assert_int_equal(fclose(f), 0);
}

/* A descriptor closed behind the wrapper's back (libc internals, a raw
 * system call) and reused for something else is not taken for a socket. */
static void test_closed_behind_back(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int p[2], u, r;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[8];

	(void)state;
	close_behind_back(fd);
	assert_int_equal(pipe(p), 0);
	r = p[0] == fd ? p[0] : p[1];
	assert_int_equal(r, fd);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), -1);
	assert_int_equal(errno, ENOTSOCK);
	close(p[0]);
	close(p[1]);

	/* Reused by a plain unix socket: answers as a unix socket. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	close_behind_back(fd);
	u = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_int_equal(u, fd);
	len = sizeof(ss);
	assert_int_equal(getsockname(u, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_UNIX);
	close(u);

	/* close_range forgets records too. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
#ifdef HAVE_CLOSE_RANGE
	assert_int_equal(close_range((unsigned)fd, (unsigned)fd, 0), 0);
#else
	assert_int_equal(syscall(SYS_close_range, fd, fd, 0), 0);
#endif
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "ok", 2), 2);
	assert_int_equal(read(p[0], buf, 2), 2);
	close(p[0]);
	close(p[1]);
}

static void test_indicate_no_inet_fd(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	(void)state;
	socket_wrapper_indicate_no_inet_fd(fd);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_UNIX);
	close(fd);
}

static void test_other_families_untouched(void **state)
{
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	int sv[2];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	(void)state;
	assert_true(u >= 0);
	assert_int_equal(getsockname(u, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_UNIX);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], "x", 1), 1);
	assert_int_equal(read(sv[1], (char[1]){0}, 1), 1);
	close(sv[0]);
	close(sv[1]);
	close(u);
}

static void test_bindresvport(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port;

	(void)state;
#ifndef HAVE_BINDRESVPORT
	(void)sin, (void)ss, (void)len, (void)port;
	close(fd);
	skip(); /* the C library has no bindresvport (musl) */
#else
	assert_int_equal(bindresvport(fd, &sin), 0);
	port = ntohs(sin.sin_port);
	assert_in_range(port, 600, 1023);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), port);
	close(fd);
#endif
}

static void test_v4_mapped_connect(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "127.0.0.18", 143);
	int c;
	char a[64];

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	c = swrap_test_connect(SOCK_STREAM, "::ffff:127.0.0.18", 143);
	assert_string_equal(swrap_test_name(c, a, true),
			    "[::ffff:127.0.0.18]:143");
	close(c);
	close(l);
}

/* An IPv6 socket on the wildcard address takes IPv4 clients too (dual
 * stack), which it sees as v4-mapped addresses. */
static void test_dual_stack(void **state)
{
	int l = swrap_test_bound(SOCK_STREAM, "::", 8443);
	int u = swrap_test_bound(SOCK_DGRAM, "::", 8443);
	int c, s, uc;
	char a[64], b[64];
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);

	(void)state;
	assert_int_equal(listen(l, 5), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.30", 8443);
	s = accepted(l);
	/* The client (127.0.0.30:P) is seen as [::ffff:127.0.0.30]:P. */
	swrap_test_name(c, b, false);
	snprintf(a, sizeof(a), "[::ffff:127.0.0.30]%s", strchr(b, ':'));
	assert_string_equal(swrap_test_name(s, b, true), a);
	close(s);
	close(c);
	uc = swrap_test_connect(SOCK_DGRAM, "127.0.0.30", 8443);
	assert_int_equal(send(uc, "v4", 2, 0), 2);
	assert_int_equal(
	    recvfrom(u, a, sizeof(a), 0, (struct sockaddr *)&from, &flen), 2);
	assert_int_equal(from.ss_family, AF_INET6);
	assert_memory_equal(swrap_test_ntop(&from, b),
			    "[::ffff:127.0.0.30]:", 20);
	close(uc);
	close(u);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_enabled),
	    cmocka_unit_test(test_on_disk_names),
	    cmocka_unit_test(test_unbound_and_wildcard),
	    cmocka_unit_test(test_port_zero_and_autobind),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_stale_file_reused),
	    cmocka_unit_test(test_listener_marker),
	    cmocka_unit_test(test_marker_of_forked_listener),
	    cmocka_unit_test(test_bound_client),
	    cmocka_unit_test(test_listener_without_marker),
	    cmocka_unit_test(test_plain_unix_client),
	    cmocka_unit_test(test_foreign_listener),
	    cmocka_unit_test(test_stale_marker_replaced),
	    cmocka_unit_test(test_udp_to_nobody_and_broadcast),
	    cmocka_unit_test(test_broadcast_other_network),
	    cmocka_unit_test(test_privileged_port_for_any_user),
	    cmocka_unit_test(test_connected_udp),
	    cmocka_unit_test(test_sockopts),
	    cmocka_unit_test(test_nonblocking_connect),
	    cmocka_unit_test(test_poll_select_epoll),
	    cmocka_unit_test(test_dup_shares_record),
	    cmocka_unit_test(test_closed_behind_back),
	    cmocka_unit_test(test_indicate_no_inet_fd),
	    cmocka_unit_test(test_other_families_untouched),
	    cmocka_unit_test(test_bindresvport),
	    cmocka_unit_test(test_v4_mapped_connect),
	    cmocka_unit_test(test_dual_stack),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
