/*
 * IPPROTO_TCP options of emulated TCP sockets against a real kernel TCP
 * socket on 127.0.0.1 (port 0) in the same process: TCP_INFO (length
 * rules, tcpi_state through the life of a connection, plausible sizes and
 * timers from SOCKET_WRAPPER_MTU) and the options programs set and read
 * back (TCP_NODELAY, TCP_MAXSEG, TCP_KEEPIDLE/INTVL/CNT, TCP_USER_TIMEOUT,
 * TCP_CORK, TCP_QUICKACK), with the kernel's ranges.
 */
#include "swrap_test.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("10");
	close(socket(AF_INET, SOCK_STREAM, 0)); /* the wrapper reads it */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

/* A connected TCP pair and its listener, real (127.0.0.1, a kernel
 * port) or emulated (127.0.0.10:port). */
struct pair {
	int l, c, a;
};

static int tcp_socket(bool real)
{
	int fd = real ? swrap_test_real_socket(AF_INET, SOCK_STREAM, 0)
		      : socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(swrap_test_is_unix(fd), !real);
	return fd;
}

static void make_pair(bool real, struct pair *p)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(real ? "127.0.0.1" : "127.0.0.10",
				      real ? 0 : 2000, &ss);

	p->l = tcp_socket(real);
	p->c = tcp_socket(real);
	assert_int_equal(bind(p->l, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(p->l, 7), 0);
	assert_int_equal(getsockname(p->l, (struct sockaddr *)&ss, &len), 0);
	if (connect(p->c, (struct sockaddr *)&ss, len) != 0) {
		char name[64];

		fail_msg("connect(%s socket %d to %s): %s",
			 real ? "real" : "emulated", p->c,
			 swrap_test_ntop(&ss, name), strerror(errno));
	}
	p->a = accept(p->l, NULL, NULL);
	assert_true(p->a >= 0);
}

static void close_pair(struct pair *p)
{
	close(p->l);
	close(p->c);
	close(p->a);
}

static struct tcp_info info(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0xee, sizeof(ti));
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
	assert_int_equal(len, sizeof(ti));
	return ti;
}

static int state_of(int fd)
{
	return info(fd).tcpi_state;
}

/* The caller's length bounds what is written; optlen says how much. */
static void test_tcp_info_lengths(void **state)
{
	int fds[2] = {tcp_socket(true), tcp_socket(false)};
	unsigned char buf[2][1024];
	socklen_t len[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		for (socklen_t want = 0; want <= sizeof(struct tcp_info);
		     want += 4) {
			memset(buf[i], 0xee, sizeof(buf[i]));
			len[i] = want;
			assert_int_equal(getsockopt(fds[i], IPPROTO_TCP,
						    TCP_INFO, buf[i], &len[i]),
					 0);
			assert_int_equal(len[i], want);
			assert_int_equal(buf[i][want], 0xee);
		}
		/* A large buffer: the kernel's whole structure (its size
		 * depends on the kernel; at least glibc's). */
		len[i] = sizeof(buf[i]);
		assert_int_equal(
		    getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, buf[i], &len[i]),
		    0);
		assert_true(len[i] >= sizeof(struct tcp_info));
		assert_true(len[i] < sizeof(buf[i]));
		/* state, then the first timers: same on both */
		assert_int_equal(buf[i][0], TCP_CLOSE);
	}
	printf("kernel tcp_info: %u bytes, ours: %u\n", (unsigned)len[0],
	       (unsigned)len[1]);
	close(fds[0]);
	close(fds[1]);
}

/* tcpi_state through a connection's life, emulated and real alike:
 * CLOSE before connect, LISTEN, ESTABLISHED on both ends, CLOSE_WAIT /
 * FIN_WAIT2 while one side shut down, CLOSE once both did. */
static void test_tcp_info_states(void **state)
{
	(void)state;
	for (int real = 1; real >= 0; real--) {
		struct pair p;
		struct pollfd pf;
		int fresh = tcp_socket(real);

		assert_int_equal(state_of(fresh), TCP_CLOSE);
		close(fresh);
		make_pair(real, &p);
		assert_int_equal(state_of(p.l), TCP_LISTEN);
		assert_int_equal(state_of(p.c), TCP_ESTABLISHED);
		assert_int_equal(state_of(p.a), TCP_ESTABLISHED);

		/* The client shuts down: the server sees the FIN (wait for
		 * it, it is a packet on the real loopback). */
		assert_int_equal(shutdown(p.c, SHUT_WR), 0);
		pf.fd = p.a;
		pf.events = POLLRDHUP;
		assert_int_equal(poll(&pf, 1, -1), 1);
		assert_int_equal(state_of(p.a), TCP_CLOSE_WAIT);
		if (real) {
			/* FIN_WAIT1 until the ACK is back: not compared. */
			int st = state_of(p.c);

			assert_true(st == TCP_FIN_WAIT1 || st == TCP_FIN_WAIT2);
		} else {
			assert_int_equal(state_of(p.c), TCP_FIN_WAIT2);
		}
		/* The server shuts down too: both CLOSE (the kernel's
		 * client is in TIME_WAIT, its socket says CLOSE). */
		assert_int_equal(shutdown(p.a, SHUT_WR), 0);
		pf.fd = p.c;
		assert_int_equal(poll(&pf, 1, -1), 1);
		assert_int_equal(state_of(p.c), TCP_CLOSE);
		while (real && state_of(p.a) != TCP_CLOSE) {
			usleep(1000); /* LAST_ACK until the last ACK */
		}
		assert_int_equal(state_of(p.a), TCP_CLOSE);
		close_pair(&p);
	}
}

/* Connected: timers and sizes a kernel would show on a link of the MTU
 * (1500 by default: an MSS of 1448 with timestamps); unconnected: the
 * kernel's initial values; listening: the backlog in tcpi_sacked. */
static void test_tcp_info_values(void **state)
{
	struct pair p, r;
	struct tcp_info e, k;
	int fresh = tcp_socket(false), rfresh = tcp_socket(true);

	(void)state;
	make_pair(false, &p);
	make_pair(true, &r);
	for (int i = 0; i < 2; i++) {
		e = info(i == 0 ? p.c : p.a);
		k = info(i == 0 ? r.c : r.a);
		assert_true(e.tcpi_rto > 0);
		assert_true(e.tcpi_rtt > 0);
		assert_int_equal(e.tcpi_snd_mss, 1448);
		assert_int_equal(e.tcpi_rcv_mss, 1448);
		assert_int_equal(e.tcpi_pmtu, 1500);
		assert_int_equal(e.tcpi_options, k.tcpi_options);
		/* 200 ms, the kernel's minimum; its own is that plus its
		 * estimate of the round trip and a jiffy or so (204 ms with
		 * HZ=250, more on a loaded machine). */
		assert_int_equal(e.tcpi_rto, 200000);
		assert_true(k.tcpi_rto >= e.tcpi_rto);
		assert_int_equal(e.tcpi_snd_cwnd, k.tcpi_snd_cwnd);
		assert_int_equal(e.tcpi_snd_ssthresh, k.tcpi_snd_ssthresh);
		assert_int_equal(e.tcpi_reordering, k.tcpi_reordering);
		assert_int_equal(e.tcpi_total_retrans, 0);
	}
	e = info(fresh);
	k = info(rfresh);
	assert_int_equal(e.tcpi_rto, k.tcpi_rto);
	assert_int_equal(e.tcpi_snd_mss, k.tcpi_snd_mss);
	assert_int_equal(e.tcpi_rttvar, k.tcpi_rttvar);
	e = info(p.l);
	k = info(r.l);
	assert_int_equal(e.tcpi_sacked, 7);
	assert_int_equal(e.tcpi_sacked, k.tcpi_sacked);
	assert_int_equal(e.tcpi_snd_cwnd, k.tcpi_snd_cwnd);
	close_pair(&p);
	close_pair(&r);
	close(fresh);
	close(rfresh);
}

static int get_int(int fd, int name, int *v)
{
	socklen_t len = sizeof(*v);
	int rc = getsockopt(fd, IPPROTO_TCP, name, v, &len);

	assert_true(rc != 0 || len == sizeof(*v));
	return rc;
}

/* Every option: the default, a set value read back, and out-of-range
 * values, each answered as the kernel answers on a real TCP socket. */
static void test_tcp_options_as_kernel(void **state)
{
	static const struct {
		const char *name;
		int opt;
		int vals[6];
	} cases[] = {
	    {"TCP_NODELAY", TCP_NODELAY, {1, 5, 0, -1, 2, 0}},
	    {"TCP_CORK", TCP_CORK, {1, 3, 0, 7, 0, 1}},
	    {"TCP_QUICKACK", TCP_QUICKACK, {0, 1, 5, 0, -2, 0}},
	    {"TCP_MAXSEG", TCP_MAXSEG, {1000, 88, 87, 32767, 32768, 0}},
	    {"TCP_KEEPIDLE", TCP_KEEPIDLE, {77, 1, 0, 32767, 32768, -5}},
	    {"TCP_KEEPINTVL", TCP_KEEPINTVL, {30, 1, 0, 32767, 40000, 9}},
	    {"TCP_KEEPCNT", TCP_KEEPCNT, {3, 127, 128, 0, 1, -1}},
	    {"TCP_USER_TIMEOUT", TCP_USER_TIMEOUT, {30000, 0, -1, 1, 7, 0}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int k = tcp_socket(true), e = tcp_socket(false);
		int kv, ev, krc, erc, kerr, eerr;

		krc = get_int(k, cases[i].opt, &kv);
		erc = get_int(e, cases[i].opt, &ev);
		assert_int_equal(krc, 0);
		assert_int_equal(erc, 0);
		printf("%s: default kernel %d, ours %d\n", cases[i].name, kv,
		       ev);
		assert_int_equal(ev, kv);
		for (int j = 0; j < 6; j++) {
			int v = cases[i].vals[j];

			krc = setsockopt(k, IPPROTO_TCP, cases[i].opt, &v,
					 sizeof(v));
			kerr = errno;
			erc = setsockopt(e, IPPROTO_TCP, cases[i].opt, &v,
					 sizeof(v));
			eerr = errno;
			assert_int_equal(erc, krc);
			if (krc != 0) {
				assert_int_equal(eerr, kerr);
			}
			assert_int_equal(get_int(k, cases[i].opt, &kv), 0);
			assert_int_equal(get_int(e, cases[i].opt, &ev), 0);
			printf("%s = %d: kernel %s %d, ours %s %d\n",
			       cases[i].name, v, krc ? "refused," : "read", kv,
			       erc ? "refused," : "read", ev);
			assert_int_equal(ev, kv);
		}
		/* A short length is refused. */
		krc = setsockopt(k, IPPROTO_TCP, cases[i].opt, &kv, 2);
		kerr = errno;
		erc = setsockopt(e, IPPROTO_TCP, cases[i].opt, &ev, 2);
		eerr = errno;
		assert_int_equal(erc, krc);
		assert_int_equal(eerr, kerr);
		close(k);
		close(e);
	}
}

/* TCP_MAXSEG of a connection is its MSS (from the MTU here; the kernel's
 * loopback has its own), of a listener the kernel's default. */
static void test_tcp_maxseg_connected(void **state)
{
	struct pair p;
	int v;

	(void)state;
	make_pair(false, &p);
	assert_int_equal(get_int(p.c, TCP_MAXSEG, &v), 0);
	assert_int_equal(v, 1448);
	assert_int_equal(get_int(p.l, TCP_MAXSEG, &v), 0);
	assert_int_equal(v, 536);
	close_pair(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_info_lengths),
	    cmocka_unit_test(test_tcp_info_states),
	    cmocka_unit_test(test_tcp_info_values),
	    cmocka_unit_test(test_tcp_options_as_kernel),
	    cmocka_unit_test(test_tcp_maxseg_connected),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
