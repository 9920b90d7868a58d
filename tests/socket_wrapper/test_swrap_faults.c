/*
 * SOCKET_WRAPPER_FAULTS: each effect against what a program sees, and
 * rules rewritten while connections are open. Client and server are both
 * in this process (both ours: the client applies the rules). Timing
 * bounds are loose (a loaded 2-core machine) but fail without the effect.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

#include "pcap_reader.h"
#include "swrap_test.h"


#ifndef HAVE_PREADV2
/* (musl has no preadv2/pwritev2: their current-position form is readv and
 * writev, which go through the same rules) */
#define preadv2(fd, v, n, off, flags) readv(fd, v, n)
#define pwritev2(fd, v, n, off, flags) writev(fd, v, n)
#endif

static char *dir;
static char rules[4200];
static const char *srv = "127.0.0.10";

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Rewrite the rule file and give every process the 100 ms it may take. */
static void set_rules(const char *text)
{
	FILE *f = fopen(rules, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	usleep(100 * 1000);
}

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("20");
	snprintf(rules, sizeof(rules), "%s/rules", dir);
	set_rules("");
	assert_int_equal(setenv("SOCKET_WRAPPER_FAULTS", rules, 1), 0);
	assert_int_equal(setenv("SOCKET_WRAPPER_FAULTS_SEED", "42", 1), 0);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("SOCKET_WRAPPER_FAULTS");
	swrap_test_teardown(dir);
	return 0;
}

/* A connected pair through a listener on srv:port: *c the client. */
static void pair(int l, int port, int *c, int *a)
{
	*c = swrap_test_connect(SOCK_STREAM, srv, port);
	*a = accept(l, NULL, NULL);
	assert_true(*a >= 0);
}

static int connect_to(int port, bool nonblock, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(srv, port, &ss);
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0),
			0);
	int rc;

	assert_true(fd >= 0);
	rc = connect(fd, (struct sockaddr *)&ss, len);
	*err = rc == 0 ? 0 : errno;
	return fd;
}

static void test_refuse(void **state)
{
	int l = swrap_test_listener(srv, 8080, 8);
	int l2 = swrap_test_listener(srv, 8081, 8);
	int fd, err, soerr;
	socklen_t sl = sizeof(soerr);
	struct pollfd p;

	(void)state;
	set_rules("# a comment line\n"
		  "tcp 127.0.0.10:8080 refuse\n");
	fd = connect_to(8080, false, &err);
	assert_int_equal(err, ECONNREFUSED);
	close(fd);
	/* another port of the same address is not covered */
	fd = connect_to(8081, false, &err);
	assert_int_equal(err, 0);
	close(fd);
	/* nonblocking: EINPROGRESS, then SO_ERROR tells */
	fd = connect_to(8080, true, &err);
	assert_int_equal(err, EINPROGRESS);
	p = (struct pollfd){.fd = fd, .events = POLLOUT};
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl), 0);
	assert_int_equal(soerr, ECONNREFUSED);
	close(fd);
	/* healed */
	set_rules("");
	fd = connect_to(8080, false, &err);
	assert_int_equal(err, 0);
	close(fd);
	close(l);
	close(l2);
}

static void test_blackhole_connect(void **state)
{
	int l = swrap_test_listener(srv, 8082, 8);
	struct timeval tv = {.tv_sec = 0, .tv_usec = 300 * 1000};
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(srv, 8082, &ss);
	struct pollfd p;
	long t;
	int fd, err;

	(void)state;
	set_rules("tcp 127.0.0.10:8082 to blackhole\n");
	/* nonblocking: in progress, never writable, EALREADY again */
	fd = connect_to(8082, true, &err);
	assert_int_equal(err, EINPROGRESS);
	p = (struct pollfd){.fd = fd, .events = POLLOUT | POLLIN};
	assert_int_equal(poll(&p, 1, 300), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EALREADY);
	close(fd);
	/* blocking: until SO_SNDTIMEO */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)), 0);
	t = now_ms();
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), -1);
	assert_int_equal(errno, EINPROGRESS);
	assert_true(now_ms() - t >= 250);
	close(fd);
	set_rules("");
	close(l);
}

static int64_t captured_ms(const struct cwrap_pcap *cap, int proto,
			  const char *data);

/* Reap this process's children (it is their subreaper: the relays and
 * helpers of its sockets) for up to `ms`: true once none is left. */
static bool no_child_left(long ms)
{
	long end = now_ms() + ms;

	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r < 0 && errno == ECHILD) {
			return true;
		}
		if (r == 0) {
			if (now_ms() > end) {
				return false;
			}
			usleep(10 * 1000);
		}
	}
}

/* A non-blocking connect() held by a blackhole completes once the rule
 * goes: the socket polls writable, SO_ERROR is 0, data flows both ways.
 * What completes it (a process made when the blackhole held the connect)
 * ends with the connection; closed before the rule goes, the socket
 * leaves nothing behind and the server never sees it. */
static void test_blackhole_pending_heals(void **state)
{
	int l = swrap_test_listener(srv, 8100, 8);
	struct pollfd p;
	int fd, err, soerr = -1, a, syn = 0, fin = 0;
	socklen_t sl = sizeof(soerr);
	char buf[64], path[4200];
	struct cwrap_pcap *cap;

	(void)state;
	snprintf(path, sizeof(path), "%s/pending.pcap", dir);
	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", path, 1), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	set_rules("tcp 127.0.0.10:8100 blackhole\n");
	fd = connect_to(8100, true, &err);
	assert_int_equal(err, EINPROGRESS);
	p = (struct pollfd){.fd = fd, .events = POLLOUT | POLLIN};
	assert_int_equal(poll(&p, 1, 300), 0);
	p = (struct pollfd){.fd = l, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 0), 0);
	set_rules("");
	p = (struct pollfd){.fd = fd, .events = POLLOUT | POLLIN};
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(p.revents, POLLOUT);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl), 0);
	assert_int_equal(soerr, 0);
	assert_string_equal(swrap_test_name(fd, buf, true), "127.0.0.10:8100");
	assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	swrap_test_write_all(fd, "ping", 4);
	swrap_test_read_all(a, buf, 4);
	assert_memory_equal(buf, "ping", 4);
	swrap_test_write_all(a, "pong", 4);
	swrap_test_read_all(fd, buf, 4);
	assert_memory_equal(buf, "pong", 4);
	close(fd);
	assert_int_equal(read(a, buf, sizeof(buf)), 0);
	close(a);
	assert_true(no_child_left(cwrap_test_wait_ms()));

	set_rules("tcp 127.0.0.10:8100 blackhole\n");
	fd = connect_to(8100, true, &err);
	assert_int_equal(err, EINPROGRESS);
	close(fd);
	assert_true(no_child_left(cwrap_test_wait_ms()));
	set_rules("");
	p = (struct pollfd){.fd = l, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 200), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	close(l);
	unsetenv("SOCKET_WRAPPER_PCAP_FILE");
	/* the capture: one connection, whole (the one closed while held
	 * left nothing) */
	cap = cwrap_pcap_read(path);
	assert_non_null(cap);
	for (size_t i = 0; i < cap->n; i++) {
		const struct cwrap_pcap_pkt *k = &cap->pkts[i];

		syn += k->dport == 8100 && (k->tcp_flags & 0x12) == 0x02;
		fin += k->dport == 8100 && (k->tcp_flags & 0x01);
	}
	assert_int_equal(syn, 1);
	assert_int_equal(fin, 1);
	captured_ms(cap, 6, "ping");
	captured_ms(cap, 6, "pong");
	cwrap_pcap_free(cap);
}

/* A blocking connect() waiting in a blackhole goes on once the rule
 * goes. */
static void test_blackhole_connect_heals(void **state)
{
	int l = swrap_test_listener(srv, 8083, 8);
	pid_t pid;
	long t;
	int fd, err, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8083 blackhole\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(400 * 1000);
		set_rules("");
		_exit(0);
	}
	t = now_ms();
	fd = connect_to(8083, false, &err);
	assert_int_equal(err, 0);
	assert_true(now_ms() - t >= 300);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	swrap_test_write_all(fd, "hi", 2);
	close(a);
	close(fd);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(l);
}

static void test_reset_after_bytes(void **state)
{
	int l = swrap_test_listener(srv, 8084, 8);
	char buf[64];
	int c, a;

	(void)state;
	struct pollfd p;

	set_rules("tcp 127.0.0.10:8084 reset after 10\n");
	pair(l, 8084, &c, &a);
	/* a kernel takes all 20; the reset comes after 10 went */
	assert_int_equal(write(c, "0123456789abcdefghij", 20), 20);
	p = (struct pollfd){.fd = c, .events = POLLIN};
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_true(p.revents & POLLERR);
	assert_int_equal(write(c, "x", 1), -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(send(c, "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	assert_int_equal(read(c, buf, sizeof(buf)), 0);
	/* the other end: the 10 bytes, then the reset */
	assert_int_equal(read(a, buf, sizeof(buf)), 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_int_equal(read(a, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ECONNRESET);
	close(c);
	close(a);
	set_rules("");
	close(l);
}

/* "reset that connection now": a rule added mid-run resets a connection
 * that worked, at its next call; one added with `after MSms` once the
 * connection is that old. */
static void test_reset_now_and_after_ms(void **state)
{
	int l = swrap_test_listener(srv, 8085, 8);
	char buf[8];
	int c, a;

	(void)state;
	pair(l, 8085, &c, &a);
	swrap_test_write_all(c, "ping", 4);
	swrap_test_read_all(a, buf, 4);
	set_rules("tcp 127.0.0.10:8085 reset\n");
	assert_int_equal(read(c, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(write(a, "x", 1) == -1 || read(a, buf, 1) == -1, 1);
	close(c);
	close(a);

	set_rules("tcp 127.0.0.10:8085 reset after 300ms\n");
	pair(l, 8085, &c, &a);
	swrap_test_write_all(c, "ping", 4);
	swrap_test_read_all(a, buf, 4);
	usleep(400 * 1000);
	assert_int_equal(write(c, "ping", 4), -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(read(a, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ECONNRESET);
	close(c);
	close(a);
	set_rules("");
	close(l);
}

static void test_close_after(void **state)
{
	int l = swrap_test_listener(srv, 8086, 8);
	char buf[64];
	size_t got = 0;
	ssize_t r;
	int c, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8086 from close after 5\n");
	pair(l, 8086, &c, &a);
	swrap_test_write_all(a, "0123456789", 10);
	while ((r = read(c, buf + got, sizeof(buf) - got)) > 0) {
		got += (size_t)r;
	}
	assert_int_equal(r, 0);
	assert_int_equal(got, 5);
	assert_memory_equal(buf, "01234", 5);
	/* the sender learns it: the connection is closed for it too */
	assert_int_equal(send(a, "more", 4, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	close(c);
	close(a);

	set_rules("tcp 127.0.0.10:8086 to close after 5\n");
	pair(l, 8086, &c, &a);
	assert_int_equal(write(c, "0123456789", 10), 5);
	got = 0;
	while ((r = read(a, buf + got, sizeof(buf) - got)) > 0) {
		got += (size_t)r;
	}
	assert_int_equal(r, 0);
	assert_int_equal(got, 5);
	close(c);
	close(a);
	set_rules("");
	close(l);
}

static void test_slice(void **state)
{
	int l = swrap_test_listener(srv, 8087, 8);
	char buf[64];
	int c, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8087 slice 3\n");
	pair(l, 8087, &c, &a);
	assert_int_equal(write(c, "0123456789", 10), 3);
	swrap_test_write_all(a, "0123456789", 10);
	usleep(50 * 1000);
	assert_int_equal(read(c, buf, sizeof(buf)), 3);
	assert_int_equal(recv(c, buf, sizeof(buf), 0), 3);
	/* healed: the rest at once */
	set_rules("");
	assert_int_equal(read(c, buf, sizeof(buf)), 4);
	assert_int_equal(write(c, "0123456789", 10), 10);
	close(c);
	close(a);
	close(l);
}

/* Established connection into a blackhole: writes vanish, reads wait; a
 * healed link carries data again. */
static void test_blackhole_established(void **state)
{
	int l = swrap_test_listener(srv, 8088, 8);
	struct timeval tv = {.tv_sec = 0, .tv_usec = 300 * 1000};
	char buf[8];
	long t;
	int c, a;

	(void)state;
	pair(l, 8088, &c, &a);
	set_rules("tcp 127.0.0.10:8088 blackhole\n");
	assert_int_equal(write(c, "x", 1), 1);
	assert_int_equal(recv(a, buf, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	swrap_test_write_all(a, "y", 1);
	assert_int_equal(
	    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	t = now_ms();
	assert_int_equal(read(c, buf, 1), -1);
	assert_int_equal(errno, EAGAIN);
	assert_true(now_ms() - t >= 250);
	set_rules("");
	swrap_test_write_all(c, "z", 1);
	swrap_test_read_all(a, buf, 1);
	assert_int_equal(buf[0], 'z');
	close(c);
	close(a);
	close(l);
}

static int udp_recv_all(int fd, char *got, int max)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n = 0;
	char b;

	while (n < max && poll(&p, 1, 200) == 1) {
		assert_int_equal(recv(fd, &b, 1, 0), 1);
		got[n++] = b;
	}
	return n;
}

static void udp_send(int fd, int port, char b)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(srv, port, &ss);

	assert_int_equal(sendto(fd, &b, 1, 0, (struct sockaddr *)&ss, len), 1);
}

static void test_udp(void **state)
{
	int s = swrap_test_bound(SOCK_DGRAM, srv, 5353);
	int c = socket(AF_INET, SOCK_DGRAM, 0);
	char got[128];
	int n;

	(void)state;
	set_rules("udp 127.0.0.10:5353 loss 100\n");
	for (int i = 0; i < 10; i++) {
		udp_send(c, 5353, 'a');
	}
	assert_int_equal(udp_recv_all(s, got, 128), 0);

	set_rules("udp *:5353 to loss 50\n");
	n = 0;
	for (int i = 0; i < 40; i++) {
		/* (a unix datagram queue holds few: read as they come) */
		udp_send(c, 5353, 'a');
		while (recv(s, got, 1, MSG_DONTWAIT) == 1) {
			n++;
		}
	}
	assert_in_range(n, 5, 35);

	set_rules("udp 127.0.0.10:5353 duplicate 100\n");
	udp_send(c, 5353, 'd');
	assert_int_equal(udp_recv_all(s, got, 128), 2);

	set_rules("udp 127.0.0.10:5353 reorder 100\n");
	udp_send(c, 5353, 'A');
	udp_send(c, 5353, 'B');
	udp_send(c, 5353, 'C');
	udp_send(c, 5353, 'D');
	n = udp_recv_all(s, got, 128);
	assert_int_equal(n, 4);
	assert_memory_equal(got, "BADC", 4);

	/* `from`: the endpoint's own sends */
	set_rules("udp 127.0.0.10:5353 from loss 100\n");
	udp_send(c, 5353, 'q');
	assert_int_equal(udp_recv_all(s, got, 128), 1);
	{
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);

		assert_int_equal(getsockname(c, (struct sockaddr *)&peer, &pl),
				 0);
		assert_int_equal(sendto(s, "r", 1, 0, (struct sockaddr *)&peer,
					pl),
				 1);
		assert_int_equal(udp_recv_all(c, got, 128), 0);
	}
	set_rules("");
	close(s);
	close(c);
}

/* `refuse` on UDP: the endpoint's port is closed to what is sent there,
 * though its server runs: nothing arrives, a connected client hears
 * ECONNREFUSED (poll wakes, its next receive says it), an unconnected
 * one nothing; the replies come back once the rule goes, and only the
 * peer's then reach the connected client. */
static void test_udp_refuse(void **state)
{
	int s = swrap_test_bound(SOCK_DGRAM, srv, 5354);
	int c = swrap_test_connect(SOCK_DGRAM, srv, 5354);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	int other = swrap_test_bound(SOCK_DGRAM, srv, 5355);
	struct pollfd p = {.fd = c, .events = POLLIN};
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	char got[8];

	(void)state;
	assert_int_equal(getsockname(c, (struct sockaddr *)&me, &ml), 0);
	/* before the rule: the connected client talks to its server */
	assert_int_equal(send(c, "a", 1, 0), 1);
	assert_int_equal(recv(s, got, sizeof(got), 0), 1);
	set_rules("udp 127.0.0.10:5354 refuse\n");
	assert_int_equal(send(c, "b", 1, 0), 1);
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(recv(c, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(errno, ECONNREFUSED);
	assert_int_equal(recv(c, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	udp_send(u, 5354, 'c');
	assert_int_equal(udp_recv_all(s, got, 8), 0);
	assert_int_equal(udp_recv_all(u, got, 8), 0);
	/* another port is not refused */
	udp_send(u, 5355, 'd');
	assert_int_equal(udp_recv_all(other, got, 8), 1);
	/* the rule gone: the next send arrives and the answer comes back */
	set_rules("");
	assert_int_equal(send(c, "e", 1, 0), 1);
	assert_int_equal(recv(s, got, sizeof(got), 0), 1);
	assert_int_equal(got[0], 'e');
	assert_int_equal(sendto(s, "E", 1, 0, (struct sockaddr *)&me, ml), 1);
	assert_int_equal(udp_recv_all(c, got, 8), 1);
	assert_int_equal(got[0], 'E');
	/* and, connected again, only its peer's datagrams */
	assert_int_equal(sendto(other, "x", 1, 0, (struct sockaddr *)&me, ml),
			 1);
	assert_int_equal(udp_recv_all(c, got, 8), 0);
	close(other);
	close(u);
	close(c);
	close(s);
}

/* `probability`: about that share of connections, and the same ones for
 * the same SOCKET_WRAPPER_FAULTS_SEED, run after run. */
static uint64_t refused_pattern(void)
{
	uint64_t bits = 0;
	int err;

	for (int i = 0; i < 60; i++) {
		int fd = connect_to(8089, false, &err);

		if (err == ECONNREFUSED) {
			bits |= UINT64_C(1) << i;
		} else {
			assert_int_equal(err, 0);
		}
		close(fd);
	}
	return bits;
}

static void test_probability_seeded(void **state)
{
	int l = swrap_test_listener(srv, 8089, 128);
	uint64_t runs[2];

	(void)state;
	set_rules("tcp 127.0.0.10:8089 refuse probability 50\n");
	for (int k = 0; k < 2; k++) {
		int p[2];
		pid_t pid;

		assert_int_equal(pipe(p), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* a fresh process: its draws start from the seed */
			uint64_t b;

			close(p[0]);
			b = refused_pattern();
			if (write(p[1], &b, sizeof(b)) != sizeof(b)) {
				_exit(1);
			}
			_exit(0);
		}
		close(p[1]);
		/* drain the accept queue while the child connects */
		for (;;) {
			struct pollfd pf[2] = {{.fd = l, .events = POLLIN},
					       {.fd = p[0], .events = POLLIN}};

			poll(pf, 2, 1000);
			if (pf[0].revents & POLLIN) {
				close(accept(l, NULL, NULL));
			}
			if (pf[1].revents & (POLLIN | POLLHUP)) {
				break;
			}
		}
		assert_int_equal(read(p[0], &runs[k], sizeof(runs[k])),
				 sizeof(runs[k]));
		close(p[0]);
		assert_int_equal(waitpid(pid, NULL, 0), pid);
	}
	assert_int_equal(runs[0], runs[1]);
	assert_in_range(__builtin_popcountll(runs[0]), 10, 50);
	set_rules("");
	close(l);
}

/* A malformed line is left out; the rules around it apply. */
static void test_malformed_line(void **state)
{
	int l = swrap_test_listener(srv, 8090, 8);
	int fd, err;

	(void)state;
	set_rules("tcp 127.0.0.10:8091 explode\n"
		  "tcp 127.0.0.10:8090 refuse\n");
	fd = connect_to(8090, false, &err);
	assert_int_equal(err, ECONNREFUSED);
	close(fd);
	set_rules("");
	close(l);
}


/* delay: data arrives no earlier than MS after it was sent, each way; the
 * sender is not held up. */
static void test_delay(void **state)
{
	int l = swrap_test_listener(srv, 8092, 8);
	char buf[8];
	long t, w, least = LONG_MAX;
	int c, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8092 delay 150\n");
	pair(l, 8092, &c, &a);
	for (int i = 0; i < 4; i++) {
		t = now_ms();
		swrap_test_write_all(c, "p", 1);
		w = now_ms() - t;
		/* (the first write also starts the relay, which valgrind or
		 * a loaded machine can make slow: not timed) */
		if (i > 0 && w < least) {
			least = w;
		}
		swrap_test_read_all(a, buf, 1);
		swrap_test_write_all(a, "q", 1);
		swrap_test_read_all(c, buf, 1);
		/* 150 ms each way */
		assert_true(now_ms() - t >= 280);
	}
	/* the writer goes on: its write returns before the delay is over
	 * (at least one of three: a loaded machine may keep any one of
	 * them waiting, a writer held for the delay is held every time) */
	assert_true(least < 150);
	/* healed: a ping-pong is quick again, not the 300 ms of the rule
	 * (at least one of five, for the same reason) */
	set_rules("");
	for (int i = 0; i < 5; i++) {
		t = now_ms();
		swrap_test_write_all(c, "p", 1);
		swrap_test_read_all(a, buf, 1);
		swrap_test_write_all(a, "q", 1);
		swrap_test_read_all(c, buf, 1);
		w = now_ms() - t;
		if (w < 250) {
			break;
		}
	}
	assert_true(w < 250);
	close(c);
	swrap_test_read_all(a, buf, 0);
	assert_int_equal(read(a, buf, 1), 0);
	close(a);
	close(l);
}

static void test_rate(void **state)
{
	int l = swrap_test_listener(srv, 8093, 8);
	static char big[60000];
	long t;
	int c, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8093 to rate 100000\n");
	pair(l, 8093, &c, &a);
	memset(big, 'r', sizeof(big));
	t = now_ms();
	swrap_test_write_all(c, big, sizeof(big));
	swrap_test_read_all(a, big, sizeof(big));
	/* 60000 bytes at 100000 B/s: 0.6 s */
	assert_true(now_ms() - t >= 450);
	/* the other direction is not limited: not the 0.6 s (at least one
	 * of five: a loaded machine may keep any one of them waiting) */
	for (int i = 0; i < 5; i++) {
		t = now_ms();
		swrap_test_write_all(a, big, sizeof(big));
		swrap_test_read_all(c, big, sizeof(big));
		t = now_ms() - t;
		if (t < 400) {
			break;
		}
	}
	assert_true(t < 400);
	set_rules("");
	close(c);
	close(a);
	close(l);
}

/* `probability` on a delay: a connection that a rule did not choose is
 * not delayed by it, also once another rule's relay holds its data and
 * reads the rules again as it goes. (The rule not chosen delays by 30 s,
 * so that no slowness of a loaded machine passes for it.) */
static void test_delay_probability(void **state)
{
	int l = swrap_test_listener(srv, 8110, 8);
	char buf[8];
	long t;
	int c, a;

	(void)state;
	set_rules("tcp 127.0.0.10:8110 delay 30000 probability 0\n");
	pair(l, 8110, &c, &a);
	t = now_ms();
	swrap_test_write_all(c, "p", 1);
	swrap_test_read_all(a, buf, 1);
	assert_true(now_ms() - t < 20000);
	/* a second rule that applies starts a relay: it holds the data
	 * 100 ms, never the 30 s of the rule that did not choose it */
	set_rules("tcp 127.0.0.10:8110 delay 30000 probability 0\n"
		  "tcp 127.0.0.10:8110 delay 100\n");
	for (int i = 0; i < 3; i++) {
		t = now_ms();
		swrap_test_write_all(c, "p", 1);
		swrap_test_read_all(a, buf, 1);
		assert_true(now_ms() - t >= 90);
		assert_true(now_ms() - t < 20000);
		usleep(30 * 1000); /* past the relay's look at the rules */
	}
	set_rules("");
	close(c);
	close(a);
	close(l);
}

static uint32_t sum32(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ p[i]) * 16777619u;
	}
	return h;
}

/* Many connections through a delayed link with jitter, checksummed
 * payloads both ways: nothing lost, nothing reordered, and no relay left
 * (each connection's end of file arrives): 512 connections, 16 at a time.
 * (Each is a relay process: the 2048 this made took 60 s of a loaded
 * machine, 180 s under ASan.) */
static void test_delay_many(void **state)
{
	int l = swrap_test_listener(srv, 8095, 128);
	static unsigned char out[8192], in[8192];
	int c[16], a[16];
	const char *pre = getenv("LD_PRELOAD");
	/* (under valgrind, whose preload is there, 64 connections) */
	int rounds = pre != NULL && strstr(pre, "vgpreload") != NULL ? 4 : 32;

	(void)state;
	set_rules("tcp 127.0.0.10:8095 delay 2 2\n");
	for (int round = 0; round < rounds; round++) {
		for (int i = 0; i < 16; i++) {
			pair(l, 8095, &c[i], &a[i]);
		}
		for (int i = 0; i < 16; i++) {
			for (size_t k = 0; k < sizeof(out); k++) {
				out[k] = (unsigned char)(k * 7 + i + round);
			}
			swrap_test_write_all(c[i], out, sizeof(out));
		}
		for (int i = 0; i < 16; i++) {
			for (size_t k = 0; k < sizeof(out); k++) {
				out[k] = (unsigned char)(k * 7 + i + round);
			}
			swrap_test_read_all(a[i], in, sizeof(in));
			assert_int_equal(sum32(in, sizeof(in)),
					 sum32(out, sizeof(out)));
			swrap_test_write_all(a[i], in, sizeof(in));
			close(a[i]);
		}
		for (int i = 0; i < 16; i++) {
			char b;

			swrap_test_read_all(c[i], in, sizeof(in));
			for (size_t k = 0; k < sizeof(out); k++) {
				out[k] = (unsigned char)(k * 7 + i + round);
			}
			assert_memory_equal(in, out, sizeof(out));
			assert_int_equal(read(c[i], &b, 1), 0);
			close(c[i]);
		}
	}
	set_rules("");
	close(l);
}

/* Data held by the relay when the program forks, execs and closes: it
 * arrives, in order, and the exec'd program's socket is still the
 * emulated one. */
static void test_delay_fork_exec(void **state)
{
	int l = swrap_test_listener(srv, 8094, 8);
	const char *bin = getenv("CWRAP_TEST_BIN");
	char path[4096], num[16], line[128], buf[16];
	FILE *f;
	int c, a, p[2];
	pid_t pid;
	long t;

	(void)state;
	assert_non_null(bin);
	set_rules("tcp 127.0.0.10:8094 delay 200\n");
	pair(l, 8094, &c, &a);
	t = now_ms();
	swrap_test_write_all(c, "held", 4);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/swrap_inherit", bin);
		snprintf(num, sizeof(num), "%d", c);
		dup2(p[1], 1);
		fcntl(c, F_SETFD, 0);
		execl(path, path, num, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(c); /* held data is not lost with the descriptor */
	swrap_test_read_all(a, buf, 8);
	assert_memory_equal(buf, "heldexec", 8);
	assert_true(now_ms() - t >= 150);
	swrap_test_write_all(a, "okay", 4);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_true(strncmp(line, "127.0.0.20:", 11) == 0);
	assert_non_null(strstr(line, " 127.0.0.10:8094"));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "okay\n");
	fclose(f);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* every end closed: the relay delivers the end of file and goes */
	assert_int_equal(read(a, buf, 1), 0);
	close(a);
	set_rules("");
	close(l);
}

/* UDP delay and rate: datagrams arrive late, the sender goes on, and
 * those held when the socket closes still arrive. */
static void test_udp_delay_rate(void **state)
{
	int s = swrap_test_bound(SOCK_DGRAM, srv, 5354);
	int c = socket(AF_INET, SOCK_DGRAM, 0);
	struct pollfd p = {.fd = s, .events = POLLIN};
	char got[2000];
	long t;

	(void)state;
	set_rules("udp 127.0.0.10:5354 delay 150\n");
	t = now_ms();
	udp_send(c, 5354, 'a');
	/* the sender went on: nothing there yet when it returned (looked
	 * at only while the delay cannot be over: a loaded machine may have
	 * kept this process waiting past it) */
	{
		int r = poll(&p, 1, 0);

		if (now_ms() - t < 130) {
			assert_int_equal(r, 0);
		}
	}
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_true(now_ms() - t >= 130);
	assert_int_equal(recv(s, got, sizeof(got), 0), 1);
	/* held when the sender closes: still delivered */
	udp_send(c, 5354, 'b');
	close(c);
	assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
	assert_int_equal(recv(s, got, sizeof(got), 0), 1);
	assert_int_equal(got[0], 'b');

	set_rules("udp 127.0.0.10:5354 rate 10000\n");
	c = socket(AF_INET, SOCK_DGRAM, 0);
	memset(got, 'x', sizeof(got));
	t = now_ms();
	for (int i = 0; i < 6; i++) {
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa(srv, 5354, &ss);

		assert_int_equal(sendto(c, got, 1000, 0,
					(struct sockaddr *)&ss, len),
				 1000);
	}
	for (int i = 0; i < 6; i++) {
		assert_int_equal(poll(&p, 1, cwrap_test_wait_ms()), 1);
		assert_int_equal(recv(s, got, sizeof(got), 0), 1000);
	}
	/* 6000 bytes at 10000 B/s */
	assert_true(now_ms() - t >= 450);
	set_rules("");
	close(c);
	close(s);
}

/* Endpoint forms: an IPv6 address with a port, `*:PORT` over both
 * families, `any`, and a rule of the other protocol that does not
 * apply. */
static int connect_any(const char *addr, int port, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	*err = connect(fd, (struct sockaddr *)&ss, len) == 0 ? 0 : errno;
	return fd;
}

static void test_endpoint_forms(void **state)
{
	const char *v6 = "fd00::5357:5f0a";
	int l[4], fd, err;

	(void)state;
	l[0] = swrap_test_listener(srv, 8096, 8);
	l[1] = swrap_test_listener(v6, 8096, 8);
	l[2] = swrap_test_listener(srv, 8097, 8);
	l[3] = swrap_test_listener(v6, 8097, 8);
	set_rules("any [fd00::5357:5f0a]:8096 refuse\n"
		  "udp *:8096 loss 100\n"
		  "tcp *:8097 refuse\n");
	fd = connect_any(v6, 8096, &err);
	assert_int_equal(err, ECONNREFUSED);
	close(fd);
	fd = connect_any(srv, 8096, &err);
	assert_int_equal(err, 0);
	close(fd);
	fd = connect_any(srv, 8097, &err);
	assert_int_equal(err, ECONNREFUSED);
	close(fd);
	fd = connect_any(v6, 8097, &err);
	assert_int_equal(err, ECONNREFUSED);
	close(fd);
	set_rules("");
	for (int i = 0; i < 4; i++) {
		close(l[i]);
	}
}

/* Every data call goes through the rules, not only read() and write():
 * sendmmsg/recvmmsg, sendfile (with and without an offset), splice both
 * ways, pwritev2/preadv2 and syscall(SYS_sendfile) move at most `slice`
 * bytes, and what a short sendfile or splice did not move stays in the
 * file or pipe, in order; a reset reached through sendfile() is seen by
 * both ends. */
static void test_every_data_call(void **state)
{
	int l = swrap_test_listener(srv, 8098, 8);
	char buf[16] = "0123456789", got[64];
	struct iovec v = {.iov_base = buf, .iov_len = 10};
	struct mmsghdr mm = {.msg_hdr = {.msg_iov = &v, .msg_iovlen = 1}};
	FILE *f = tmpfile();
	off_t off = 0;
	int c, a, p[2];

	(void)state;
	assert_non_null(f);
	assert_int_equal(fputs("abcdefghij", f) >= 0, 1);
	assert_int_equal(fflush(f), 0);
	assert_int_equal(pipe(p), 0);
	set_rules("tcp 127.0.0.10:8098 slice 3\n");
	pair(l, 8098, &c, &a);
	assert_int_equal(sendmmsg(c, &mm, 1, 0), 1);
	assert_int_equal(mm.msg_len, 3);
	assert_int_equal(sendfile(c, fileno(f), &off, 10), 3);
	assert_int_equal(off, 3);
	assert_int_equal(lseek(fileno(f), 5, SEEK_SET), 5);
	assert_int_equal(sendfile(c, fileno(f), NULL, 5), 3);
	assert_int_equal(lseek(fileno(f), 0, SEEK_CUR), 8);
	assert_int_equal(write(p[1], "ABCDEFGHIJ", 10), 10);
	assert_int_equal(splice(p[0], NULL, c, NULL, 10, 0), 3);
	assert_int_equal(read(p[0], got, sizeof(got)), 7);
	assert_memory_equal(got, "DEFGHIJ", 7);
	assert_int_equal(pwritev2(c, &v, 1, -1, 0), 3);
	off = 0;
	assert_int_equal(syscall(SYS_sendfile, c, fileno(f), &off, 10), 3);
	swrap_test_read_all(a, got, 18);
	assert_memory_equal(got, "012abcfghABC012abc", 18);

	swrap_test_write_all(a, "klmnopqrstuvwxyz", 16);
	usleep(50 * 1000);
	v.iov_base = got;
	v.iov_len = sizeof(got);
	assert_int_equal(recvmmsg(c, &mm, 1, 0, NULL), 1);
	assert_int_equal(mm.msg_len, 3);
	assert_memory_equal(got, "klm", 3);
	assert_int_equal(splice(c, NULL, p[1], NULL, 10, 0), 3);
	assert_int_equal(read(p[0], got, sizeof(got)), 3);
	assert_memory_equal(got, "nop", 3);
	assert_int_equal(preadv2(c, &v, 1, -1, 0), 3);
	assert_memory_equal(got, "qrs", 3);
	/* healed: the real calls, whole */
	set_rules("");
	assert_int_equal(splice(c, NULL, p[1], NULL, 64, 0), 7);
	assert_int_equal(read(p[0], got, sizeof(got)), 7);
	assert_memory_equal(got, "tuvwxyz", 7);
	off = 0;
	assert_int_equal(sendfile(c, fileno(f), &off, 10), 10);
	swrap_test_read_all(a, got, 10);
	assert_memory_equal(got, "abcdefghij", 10);
	close(c);
	close(a);

	set_rules("tcp 127.0.0.10:8098 reset after 5\n");
	pair(l, 8098, &c, &a);
	off = 0;
	assert_int_equal(sendfile(c, fileno(f), &off, 10), 10);
	off = 0;
	assert_int_equal(sendfile(c, fileno(f), &off, 10), -1);
	assert_int_equal(errno, ECONNRESET);
	swrap_test_read_all(a, got, 5);
	assert_memory_equal(got, "abcde", 5);
	assert_int_equal(read(a, got, sizeof(got)), -1);
	assert_int_equal(errno, ECONNRESET);
	close(c);
	close(a);
	set_rules("");
	close(p[0]);
	close(p[1]);
	fclose(f);
	close(l);
}

/* Wall-clock milliseconds, the capture's clock. */
static int64_t wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The capture's time of the first packet of `proto` carrying `data`. */
static int64_t captured_ms(const struct cwrap_pcap *cap, int proto,
			  const char *data)
{
	size_t n = strlen(data);

	for (size_t i = 0; i < cap->n; i++) {
		const struct cwrap_pcap_pkt *p = &cap->pkts[i];

		if (p->proto == proto && p->payload_len == n &&
		    memcmp(p->payload, data, n) == 0) {
			return (int64_t)p->ts_sec * 1000 + p->ts_usec / 1000;
		}
	}
	fail_msg("no packet with \"%s\" in the capture", data);
	return 0;
}

/* The capture shows delayed data when it was delivered, both ways of a
 * TCP connection (the server's data too, though the client's relay holds
 * it) and for a datagram; undelayed data when it was written. */
static void test_capture_at_delivery(void **state)
{
	int l = swrap_test_listener(srv, 8099, 8);
	int u = swrap_test_bound(SOCK_DGRAM, srv, 5355);
	int uc = socket(AF_INET, SOCK_DGRAM, 0);
	char path[4200], buf[8];
	int64_t t[4];
	struct cwrap_pcap *cap;
	int c, a;

	(void)state;
	snprintf(path, sizeof(path), "%s/delay.pcap", dir);
	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", path, 1), 0);
	set_rules("tcp 127.0.0.10:8099 delay 300\n"
		  "udp 127.0.0.10:5355 delay 300\n");
	pair(l, 8099, &c, &a);
	swrap_test_write_all(c, "w", 1); /* starts the relay */
	swrap_test_read_all(a, buf, 1);
	t[0] = wall_ms();
	swrap_test_write_all(c, "ping", 4);
	swrap_test_read_all(a, buf, 4);
	t[1] = wall_ms();
	swrap_test_write_all(a, "pong", 4);
	swrap_test_read_all(c, buf, 4);
	t[2] = wall_ms();
	udp_send(uc, 5355, 'u');
	assert_int_equal(recv(u, buf, 1, 0), 1);
	set_rules("");
	t[3] = wall_ms();
	swrap_test_write_all(a, "fast", 4);
	swrap_test_read_all(c, buf, 4);
	close(c);
	close(a);
	close(uc);
	close(u);
	close(l);
	unsetenv("SOCKET_WRAPPER_PCAP_FILE");
	cap = cwrap_pcap_read(path);
	assert_non_null(cap);
	assert_true(captured_ms(cap, 6, "ping") >= t[0] + 280);
	assert_true(captured_ms(cap, 6, "pong") >= t[1] + 280);
	assert_true(captured_ms(cap, 17, "u") >= t[2] + 280);
	/* healed: at once (the relay reads the rules every 20 ms) */
	assert_true(captured_ms(cap, 6, "fast") < t[3] + 250);
	cwrap_pcap_free(cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refuse),
	    cmocka_unit_test(test_blackhole_connect),
	    cmocka_unit_test(test_blackhole_connect_heals),
	    cmocka_unit_test(test_blackhole_pending_heals),
	    cmocka_unit_test(test_reset_after_bytes),
	    cmocka_unit_test(test_reset_now_and_after_ms),
	    cmocka_unit_test(test_close_after),
	    cmocka_unit_test(test_slice),
	    cmocka_unit_test(test_blackhole_established),
	    cmocka_unit_test(test_udp),
	    cmocka_unit_test(test_udp_refuse),
	    cmocka_unit_test(test_probability_seeded),
	    cmocka_unit_test(test_malformed_line),
	    cmocka_unit_test(test_delay),
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_delay_probability),
	    cmocka_unit_test(test_delay_many),
	    cmocka_unit_test(test_delay_fork_exec),
	    cmocka_unit_test(test_udp_delay_rate),
	    cmocka_unit_test(test_endpoint_forms),
	    cmocka_unit_test(test_every_data_call),
	    cmocka_unit_test(test_capture_at_delivery),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
