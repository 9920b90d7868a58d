/*
 * Variables are read when they are used: within one process, a program
 * setenv()s a fresh SOCKET_WRAPPER_DIR, another interface, network, MTU,
 * capture file or debug level between two sockets, or unsetenv()s the
 * directory, and the next socket call follows; sockets that exist keep
 * the directory and addresses they were made with. The cmocka suites of
 * libssh and Samba work this way (a socket directory per test group).
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "pcap_reader.h"
#include "socket_wrapper.h"

static void echo_once(int fd, const char *text)
{
	char buf[64];
	size_t n = strlen(text);

	swrap_test_write_all(fd, text, n);
	swrap_test_read_all(fd, buf, n);
	assert_memory_equal(buf, text, n);
}

/* libssh's torture suite: a group of tests with a server in one socket
 * directory, the directory removed, then a second group after
 * setenv(SOCKET_WRAPPER_DIR, newdir), in the same process. The second
 * group's clients must reach the second server (before: they connected
 * into the first, deleted directory: "Connection refused"). */
static void test_second_group_new_dir(void **state)
{
	char *dirs[2];

	(void)state;
	for (int g = 0; g < 2; g++) {
		pid_t srv;
		int fd;

		dirs[g] = swrap_test_setup("21");
		assert_true(socket_wrapper_enabled());
		srv = swrap_test_server("tcp", "127.0.0.10", 22);
		assert_true(swrap_test_has_socket(dirs[g], "T0A0016"));
		for (int i = 0; i < 3; i++) {
			fd = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 22);
			echo_once(fd, g == 0 ? "group one" : "group two");
			close(fd);
		}
		fd = swrap_test_connect(SOCK_DGRAM, "127.0.0.10", 22);
		close(fd);
		swrap_test_stop(srv);
		/* The group's teardown. */
		swrap_test_teardown(dirs[g]);
	}
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* With SOCKET_WRAPPER_DEFAULT_IFACE=iface, a client of the listener `l`
 * (on 127.0.0.10:80) and its accepted end, both naming the client at
 * 127.0.0.<iface>. */
static void connect_from(const char *iface, int l, int *c, int *a)
{
	char buf[64], want[32];

	snprintf(want, sizeof(want), "127.0.0.%s:", iface);
	assert_int_equal(setenv("SOCKET_WRAPPER_DEFAULT_IFACE", iface, 1), 0);
	*c = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 80);
	*a = accept(l, NULL, NULL);
	assert_true(*a >= 0);
	assert_true(has_prefix(swrap_test_name(*a, buf, true), want));
	assert_true(has_prefix(swrap_test_name(*c, buf, false), want));
}

/* SOCKET_WRAPPER_DEFAULT_IFACE 10 -> 21 -> 22 between sockets: each
 * client appears at the address of the interface it was made under, the
 * listener made under 10 keeps listening there, and the first client
 * keeps .21 after the change. */
static void test_default_iface_changes(void **state)
{
	char *dir = swrap_test_setup("10");
	char buf[64];
	int l, c21, c22, a21, a22;

	(void)state;
	l = swrap_test_listener("0.0.0.0", 80, 16);
	assert_string_equal(swrap_test_name(l, buf, false), "0.0.0.0:80");
	assert_true(swrap_test_has_socket(dir, "T0A0050"));

	connect_from("21", l, &c21, &a21);
	connect_from("22", l, &c22, &a22);
	/* Existing sockets keep what they were made with. */
	assert_true(
	    has_prefix(swrap_test_name(c21, buf, false), "127.0.0.21:"));
	assert_string_equal(swrap_test_name(a21, buf, false), "127.0.0.10:80");
	swrap_test_write_all(c21, "x", 1);
	swrap_test_read_all(a21, buf, 1);
	close(c21);
	close(c22);
	close(a21);
	close(a22);
	close(l);
	swrap_test_teardown(dir);
}

/* unsetenv(SOCKET_WRAPPER_DIR): socket_wrapper_enabled() says no, new
 * sockets are real kernel sockets; the emulated connection made before
 * keeps working and keeps its names. setenv again: emulated again. */
static void test_unset_dir(void **state)
{
	/* static: still reachable in the forked child at _exit */
	static char *dir;
	char buf[64];
	int l, c, a, real;

	(void)state;
	dir = swrap_test_setup("30");
	l = swrap_test_listener("127.0.0.30", 7000, 16);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.30", 7000);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	assert_true(swrap_test_is_unix(c));

	assert_int_equal(unsetenv("SOCKET_WRAPPER_DIR"), 0);
	assert_false(socket_wrapper_enabled());
	real = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(real >= 0);
	assert_false(swrap_test_is_unix(real));
	close(real);
	/* The emulated sockets are still emulated. */
	swrap_test_write_all(c, "ping", 4);
	swrap_test_read_all(a, buf, 4);
	assert_memory_equal(buf, "ping", 4);
	assert_string_equal(swrap_test_name(a, buf, false), "127.0.0.30:7000");
	assert_int_equal(
	    strncmp(swrap_test_name(a, buf, true), "127.0.0.30:", 11), 0);
	close(a);
	close(c);
	/* Closing the listener still removes its file. */
	close(l);
	assert_false(swrap_test_has_socket(dir, "T1E1B58"));

	assert_int_equal(setenv("SOCKET_WRAPPER_DIR", dir, 1), 0);
	assert_true(socket_wrapper_enabled());
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(swrap_test_is_unix(c));
	close(c);

	/* putenv() and clearenv() are seen too (in a child: clearenv
	 * takes everything). */
	{
		static char on[600];
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (pid == 0) {
			int ok = 1;

			unsetenv("SOCKET_WRAPPER_DIR");
			ok &= !socket_wrapper_enabled();
			snprintf(on, sizeof(on), "SOCKET_WRAPPER_DIR=%s", dir);
			putenv(on);
			ok &= socket_wrapper_enabled();
			clearenv();
			ok &= !socket_wrapper_enabled();
			c = socket(AF_INET, SOCK_DGRAM, 0);
			ok &= c >= 0 && !swrap_test_is_unix(c);
			_exit(ok ? 0 : 1);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	swrap_test_teardown(dir);
}

/* A socket made under the first directory binds there even after the
 * program moved to a second one; a new socket binds in the second. */
static void test_existing_socket_keeps_dir(void **state)
{
	char *d1 = swrap_test_setup("10");
	char *d2;
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 53, &ss);
	int old = socket(AF_INET, SOCK_DGRAM, 0), now;

	(void)state;
	assert_true(old >= 0);
	d2 = swrap_test_setup("10");
	now = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(bind(old, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(bind(now, (struct sockaddr *)&ss, len), 0);
	assert_true(swrap_test_has_socket(d1, "U0A0035"));
	assert_true(swrap_test_has_socket(d2, "U0A0035"));
	/* Each talks within its own directory: a datagram from the new one
	 * reaches the new one's peer only. */
	{
		int c = socket(AF_INET, SOCK_DGRAM, 0);
		char buf[8];

		assert_int_equal(
		    sendto(c, "new", 3, 0, (struct sockaddr *)&ss, len), 3);
		assert_int_equal(recv(now, buf, sizeof(buf), 0), 3);
		assert_int_equal(recv(old, buf, sizeof(buf), MSG_DONTWAIT), -1);
		assert_int_equal(errno, EAGAIN);
		close(c);
	}
	close(old);
	close(now);
	assert_false(swrap_test_has_socket(d1, "U0A0035"));
	swrap_test_teardown(d1);
	swrap_test_teardown(d2);
}

/* A relative SOCKET_WRAPPER_DIR is resolved (realpath) where the program
 * was when it set it: after a chdir() the sockets stay in that directory,
 * and a server and a client made on either side of the chdir meet. */
static void test_relative_dir(void **state)
{
	char *dir = swrap_test_setup("10");
	char cwd[4096], *slash = strrchr(dir, '/');
	int l, c, a;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	*slash = '\0';
	assert_int_equal(chdir(dir), 0); /* the parent of the directory */
	*slash = '/';
	setenv("SOCKET_WRAPPER_DIR", slash + 1, 1);
	l = swrap_test_listener("127.0.0.10", 80, 1);
	assert_true(swrap_test_has_socket(dir, "T0A0050"));
	assert_int_equal(chdir("/"), 0);
	setenv("SOCKET_WRAPPER_DEFAULT_IFACE", "21", 1); /* a new reading */
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 80);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	swrap_test_write_all(c, "x", 1);
	{
		char b;

		swrap_test_read_all(a, &b, 1);
		assert_int_equal(b, 'x');
	}
	assert_false(swrap_test_has_socket("/", "T0A0050"));
	close(a);
	close(c);
	close(l);
	assert_int_equal(chdir(cwd), 0);
	swrap_test_teardown(dir);
}

/* SOCKET_WRAPPER_IPV4_NETWORK for new sockets; old ones keep theirs. */
static void test_ipv4_network_changes(void **state)
{
	char *dir = swrap_test_setup("10");
	struct sockaddr_storage s127, s10;
	socklen_t l127 = swrap_test_sa("127.0.0.10", 0, &s127);
	socklen_t l10 = swrap_test_sa("10.53.57.10", 0, &s10);
	int old = socket(AF_INET, SOCK_DGRAM, 0), now;
	char buf[64];

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_IPV4_NETWORK", "10.53.57.0", 1),
			 0);
	now = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(bind(now, (struct sockaddr *)&s127, l127), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_int_equal(bind(now, (struct sockaddr *)&s10, l10), 0);
	assert_int_equal(
	    strncmp(swrap_test_name(now, buf, false), "10.53.57.10:", 12), 0);
	assert_int_equal(bind(old, (struct sockaddr *)&s10, l10), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_int_equal(bind(old, (struct sockaddr *)&s127, l127), 0);
	assert_int_equal(
	    strncmp(swrap_test_name(old, buf, false), "127.0.0.10:", 11), 0);
	close(old);
	close(now);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_IPV4_NETWORK"), 0);
	swrap_test_teardown(dir);
}

static unsigned snd_mss(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
	return ti.tcpi_snd_mss;
}

/* SOCKET_WRAPPER_MTU: connections made after the change have its segment
 * size (TCP_INFO, TCP_MAXSEG); the one made before keeps 1500's. */
static void test_mtu_changes(void **state)
{
	char *dir = swrap_test_setup("10");
	int l = swrap_test_listener("127.0.0.10", 90, 16), c1, c2, v;
	socklen_t len = sizeof(v);

	(void)state;
	c1 = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 90);
	assert_int_equal(setenv("SOCKET_WRAPPER_MTU", "9000", 1), 0);
	c2 = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 90);
	assert_int_equal(snd_mss(c1), 1500 - 52);
	assert_int_equal(snd_mss(c2), 9000 - 52);
	assert_int_equal(getsockopt(c2, IPPROTO_TCP, TCP_MAXSEG, &v, &len), 0);
	assert_int_equal(v, 9000 - 52);
	close(c1);
	close(c2);
	close(l);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_MTU"), 0);
	swrap_test_teardown(dir);
}

static size_t udp_packets(const char *path, const char *payload)
{
	struct cwrap_pcap *cap = cwrap_pcap_read(path);
	size_t n = 0;

	if (cap == NULL) {
		return 0;
	}
	for (size_t i = 0; i < cap->n; i++) {
		if (cap->pkts[i].proto == 17 &&
		    cap->pkts[i].payload_len == strlen(payload) &&
		    memcmp(cap->pkts[i].payload, payload, strlen(payload)) ==
			0) {
			n++;
		}
	}
	cwrap_pcap_free(cap);
	return n;
}

/* SOCKET_WRAPPER_PCAP_FILE: set, changed, unset between socket calls;
 * each datagram lands in the file named when it was sent. */
static void test_pcap_file_changes(void **state)
{
	char *dir = swrap_test_setup("10");
	char *f1 = cwrap_test_path(dir, "one.pcap");
	char *f2 = cwrap_test_path(dir, "two.pcap");
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 53, &ss);
	int srv, cli, extra;
	char buf[16];

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", f1, 1), 0);
	srv = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(bind(srv, (struct sockaddr *)&ss, len), 0);
	cli = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(
	    sendto(cli, "first", 5, 0, (struct sockaddr *)&ss, len), 5);
	assert_int_equal(recv(srv, buf, sizeof(buf), 0), 5);

	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", f2, 1), 0);
	extra = socket(AF_INET, SOCK_DGRAM, 0); /* the next socket call */
	assert_int_equal(
	    sendto(cli, "second", 6, 0, (struct sockaddr *)&ss, len), 6);
	assert_int_equal(recv(srv, buf, sizeof(buf), 0), 6);

	assert_int_equal(unsetenv("SOCKET_WRAPPER_PCAP_FILE"), 0);
	close(extra);
	extra = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(
	    sendto(cli, "third", 5, 0, (struct sockaddr *)&ss, len), 5);
	assert_int_equal(recv(srv, buf, sizeof(buf), 0), 5);

	assert_int_equal(udp_packets(f1, "first"), 1);
	assert_int_equal(udp_packets(f1, "second"), 0);
	assert_int_equal(udp_packets(f2, "first"), 0);
	assert_int_equal(udp_packets(f2, "second"), 1);
	assert_int_equal(udp_packets(f1, "third") + udp_packets(f2, "third"),
			 0);
	close(extra);
	close(cli);
	close(srv);
	free(f1);
	free(f2);
	swrap_test_teardown(dir);
}

/* Run fn with stderr going to a file; its content, malloc'd. */
static char *stderr_of(void (*fn)(void))
{
	char *dir = cwrap_test_mkdtemp("swrap-err");
	char *path = cwrap_test_path(dir, "err");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int saved = dup(2);
	char *text;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	fn();
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	text = cwrap_test_read_file(path, NULL);
	assert_non_null(text);
	cwrap_test_rmtree(dir);
	free(dir);
	free(path);
	return text;
}

static void make_sockets(void)
{
	close(socket(AF_INET, SOCK_STREAM, 0));
	assert_int_equal(setenv("SOCKET_WRAPPER_DEBUGLEVEL", "3", 1), 0);
	close(socket(AF_INET6, SOCK_DGRAM, 0));
	assert_int_equal(setenv("SOCKET_WRAPPER_DEBUGLEVEL", "9", 1), 0);
	close(socket(AF_INET, SOCK_DGRAM, 0));
	assert_int_equal(setenv("SOCKET_WRAPPER_DEBUGLEVEL", "0", 1), 0);
	close(socket(AF_INET6, SOCK_STREAM, 0));
	/* A bad value, then changes of other variables: named once. */
	assert_int_equal(setenv("SOCKET_WRAPPER_MTU", "abc", 1), 0);
	close(socket(AF_INET, SOCK_STREAM, 0));
	assert_int_equal(setenv("CWRAP_UNRELATED", "1", 1), 0);
	close(socket(AF_INET, SOCK_STREAM, 0));
	assert_int_equal(setenv("CWRAP_UNRELATED", "2", 1), 0);
	close(socket(AF_INET, SOCK_STREAM, 0));
	assert_int_equal(unsetenv("SOCKET_WRAPPER_MTU"), 0);
	assert_int_equal(unsetenv("CWRAP_UNRELATED"), 0);
	assert_int_equal(unsetenv("SOCKET_WRAPPER_DEBUGLEVEL"), 0);
}

/* SOCKET_WRAPPER_DEBUGLEVEL follows the environment, a level above 3
 * means everything without an error, and a bad value of another variable
 * is reported once, not at every change of the environment. */
static void test_debuglevel_and_bad_values(void **state)
{
	char *dir = swrap_test_setup("10");
	char *err;

	(void)state;
	err = stderr_of(make_sockets);
	printf("%s", err);
	assert_null(strstr(err, "emulated IPv4 TCP"));
	assert_non_null(strstr(err, "emulated IPv6 UDP"));
	assert_non_null(strstr(err, "emulated IPv4 UDP"));
	assert_null(strstr(err, "emulated IPv6 TCP"));
	assert_null(strstr(err, "DEBUGLEVEL"));
	assert_non_null(strstr(err, "SOCKET_WRAPPER_MTU='abc'"));
	assert_null(strstr(strstr(err, "SOCKET_WRAPPER_MTU='abc'") + 1,
			   "SOCKET_WRAPPER_MTU"));
	free(err);
	swrap_test_teardown(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_second_group_new_dir),
	    cmocka_unit_test(test_default_iface_changes),
	    cmocka_unit_test(test_unset_dir),
	    cmocka_unit_test(test_existing_socket_keeps_dir),
	    cmocka_unit_test(test_relative_dir),
	    cmocka_unit_test(test_ipv4_network_changes),
	    cmocka_unit_test(test_mtu_changes),
	    cmocka_unit_test(test_pcap_file_changes),
	    cmocka_unit_test(test_debuglevel_and_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
