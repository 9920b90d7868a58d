/*
 * Many threads opening, using and closing emulated sockets at once (each
 * on its own port, TCP and UDP), while another thread forks: the children
 * use the wrapper right away, so a fork in the middle of another thread's
 * call must not leave a lock held. And threads making connections while
 * another changes the interface, MTU and capture file in the environment
 * (a configuration replaced while others read it). Run under TSan (label
 * threads).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "swrap_test.h"

#define THREADS 6
#define ROUNDS 60

static char *dir;
static int stop_forking;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("60");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

static int tcp_round(int id, int round)
{
	struct sockaddr_storage ss;
	/* (a port per round: the forker's children hold copies of the
	 * sockets that exist when they are forked, which keeps a port in
	 * use a moment after its owner closed it, as on a kernel) */
	socklen_t len = swrap_test_sa("127.0.0.61", 1000 + id * ROUNDS + round,
				      &ss);
	char buf[32], back[32];
	int l, c, s, n, ok = 0;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) != 0 ||
	    listen(l, 4) != 0) {
		return 0;
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&ss, len) == 0 &&
	    (s = accept(l, NULL, NULL)) >= 0) {
		n = snprintf(buf, sizeof(buf), "t%d r%d", id, round);
		if (write(c, buf, (size_t)n) == n &&
		    recv(s, back, (size_t)n, MSG_WAITALL) == n &&
		    memcmp(buf, back, (size_t)n) == 0) {
			ok = 1;
		}
		close(s);
	}
	close(c);
	close(l);
	return ok;
}

static int udp_round(int id, int round)
{
	struct sockaddr_storage ss, from;
	socklen_t len =
	    swrap_test_sa("127.0.0.62", 2000 + id * ROUNDS + round, &ss);
	socklen_t flen = sizeof(from);
	int a = socket(AF_INET, SOCK_DGRAM, 0);
	int b = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[8];
	int ok;

	ok = bind(a, (struct sockaddr *)&ss, len) == 0 &&
	     sendto(b, "dg", 2, 0, (struct sockaddr *)&ss, len) == 2 &&
	     recvfrom(a, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		      &flen) == 2;
	close(a);
	close(b);
	return ok;
}

static void *worker(void *p)
{
	int id = (int)(intptr_t)p, good = 0;

	for (int r = 0; r < ROUNDS; r++) {
		good += tcp_round(id, r);
		good += udp_round(id, r);
	}
	return (void *)(intptr_t)good;
}

/* The child uses the wrapper at once: every path that takes its locks. */
static int child_uses_wrapper(int inherited)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int type = 0, d, ok;
	socklen_t tlen = sizeof(type);

	ok = getsockname(inherited, (struct sockaddr *)&ss, &len) == 0 &&
	     ss.ss_family == AF_INET &&
	     getsockopt(inherited, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 &&
	     type == SOCK_DGRAM;
	d = dup(inherited);
	ok = ok && d >= 0 && close(d) == 0 && close(inherited) == 0;
#ifndef __SANITIZE_THREAD__
	{
		/* TSan's own allocator is not fork-safe in a threaded parent,
		 * so a new record (malloc) is made only without it. */
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		ok = ok && fd >= 0 && close(fd) == 0;
	}
#endif
	return ok;
}

static void *forker(void *p)
{
	(void)p;
	while (!__atomic_load_n(&stop_forking, __ATOMIC_ACQUIRE)) {
		int inherited = socket(AF_INET, SOCK_DGRAM, 0);
		pid_t pid = fork();

		if (pid == 0) {
			_exit(child_uses_wrapper(inherited) ? 0 : 1);
		}
		close(inherited);
		if (pid > 0) {
			int st;

			waitpid(pid, &st, 0);
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				return (void *)1;
			}
		}
		usleep(1000);
	}
	return NULL;
}

static void test_many_threads(void **state)
{
	pthread_t t[THREADS], f;
	void *ret;

	(void)state;
	assert_int_equal(pthread_create(&f, NULL, forker, NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(
		    pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i),
		    0);
	}
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_int_equal((intptr_t)ret, 2 * ROUNDS);
	}
	__atomic_store_n(&stop_forking, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(f, &ret), 0);
	assert_null(ret);
}

/* One socket shared by two threads: one blocked reading, one writing. */
static void *reader(void *p)
{
	int fd = (int)(intptr_t)p;
	char buf[4] = {0};

	return (void *)(intptr_t)(recv(fd, buf, 4, MSG_WAITALL) == 4 &&
				  memcmp(buf, "full", 4) == 0);
}

static void test_full_duplex(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.63", 7, &ss);
	int l = socket(AF_INET, SOCK_STREAM, 0), c, s;
	pthread_t t;
	void *ret;

	(void)state;
	assert_int_equal(bind(l, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(l, 1), 0);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.63", 7);
	s = accept(l, NULL, NULL);
	assert_int_equal(pthread_create(&t, NULL, reader, (void *)(intptr_t)c),
			 0);
	assert_int_equal(write(c, "ping", 4), 4);
	swrap_test_read_all(s, (char[4]){0}, 4);
	assert_int_equal(write(s, "full", 4), 4);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal((intptr_t)ret, 1);
	close(s);
	close(c);
	close(l);
}

static int stop_flipping;

/* The values the flipper switches between, as whole "NAME=value" strings
 * made before any thread starts: putenv() then only swaps a pointer in
 * environ, so no thread reads a string while another writes it (setenv()
 * writes a fresh copy, which a concurrent getenv() may read half-made:
 * the program's race, not the wrapper's). */
static char env_iface[2][40], env_mtu[50][40], env_pcap[3][600];

static void *flipper(void *p)
{
	long n = 0;

	(void)p;
	while (!__atomic_load_n(&stop_flipping, __ATOMIC_ACQUIRE)) {
		putenv(env_iface[n % 2]);
		putenv(env_mtu[n % 50]);
		putenv(env_pcap[n % 3]);
		if (n % 40 == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				int fd = socket(AF_INET, SOCK_DGRAM, 0);

				_exit(fd >= 0 ? 0 : 1);
			}
			if (pid > 0) {
				waitpid(pid, NULL, 0);
			}
		}
		n++;
		usleep(200);
	}
	return NULL;
}

/* Each connection's client address is the interface of one moment (40
 * or 41), the same seen from both ends. */
static void *connector(void *p)
{
	int id = (int)(intptr_t)p, ok = 0;
	struct sockaddr_storage ss, a, b;
	socklen_t len = swrap_test_sa("127.0.0.60", 3000 + id, &ss);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (bind(l, (struct sockaddr *)&ss, len) != 0 || listen(l, 4) != 0) {
		return (void *)(intptr_t)-1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s;
		socklen_t al = sizeof(a), bl = sizeof(b);
		unsigned ia, ib;

		if (connect(c, (struct sockaddr *)&ss, len) != 0 ||
		    (s = accept(l, (struct sockaddr *)&a, &al)) < 0) {
			close(c);
			continue;
		}
		getsockname(c, (struct sockaddr *)&b, &bl);
		ia = ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) & 0xff;
		ib = ntohl(((struct sockaddr_in *)&b)->sin_addr.s_addr) & 0xff;
		if (ia == ib && (ia == 40 || ia == 41) &&
		    write(c, "x", 1) == 1 && read(s, (char[1]){0}, 1) == 1) {
			ok++;
		}
		close(s);
		close(c);
	}
	close(l);
	return (void *)(intptr_t)ok;
}

static void test_environment_changes(void **state)
{
	pthread_t t[THREADS], f;
	void *ret;

	(void)state;
	for (int i = 0; i < 2; i++) {
		snprintf(env_iface[i], sizeof(env_iface[i]),
			 "SOCKET_WRAPPER_DEFAULT_IFACE=%d", 40 + i);
	}
	for (int i = 0; i < 50; i++) {
		snprintf(env_mtu[i], sizeof(env_mtu[i]),
			 "SOCKET_WRAPPER_MTU=%d", 1000 + i);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(env_pcap[i], sizeof(env_pcap[i]),
			 "SOCKET_WRAPPER_PCAP_FILE=%s/%s", dir,
			 i == 0	  ? "a.pcap"
			 : i == 1 ? "b.pcap"
				  : "");
	}
	env_pcap[2][strlen("SOCKET_WRAPPER_PCAP_FILE=")] = '\0';
	putenv(env_iface[0]);
	putenv(env_mtu[0]);
	putenv(env_pcap[2]);
	assert_int_equal(pthread_create(&f, NULL, flipper, NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(
		    pthread_create(&t[i], NULL, connector, (void *)(intptr_t)i),
		    0);
	}
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_int_equal((intptr_t)ret, ROUNDS);
	}
	__atomic_store_n(&stop_flipping, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(f, &ret), 0);
	unsetenv("SOCKET_WRAPPER_MTU");
	unsetenv("SOCKET_WRAPPER_PCAP_FILE");
	setenv("SOCKET_WRAPPER_DEFAULT_IFACE", "60", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many_threads),
	    cmocka_unit_test(test_full_duplex),
	    cmocka_unit_test(test_environment_changes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
