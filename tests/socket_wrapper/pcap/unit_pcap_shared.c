/*
 * Capture writer, several processes on one file: both ends of a connection
 * capturing (each packet recorded once, whichever end reports it first),
 * only the receiver capturing, a new connection over the same addresses,
 * processes racing to create the file (one header), and three processes
 * sending on one connection at once (no corruption, every message exactly
 * once, sequence numbers contiguous).
 */
#include "pcap_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define F_FIN 0x01
#define F_SYN 0x02
#define F_PSH 0x08
#define F_ACK 0x10

#define C4 pt_ep(4, 100, 41000)
#define S4 pt_ep(4, 10, 80)

/* ---- both ends capture ---------------------------------------------- */

static void client_connect_send(void *arg)
{
	struct pt_ep c = C4, s = S4;

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, "GET /\n", 6);
}

static void server_accept_serve(void *arg)
{
	struct pt_ep c = C4, s = S4;

	(void)arg;
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &s, &c, "GET /\n", 6);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "200 OK\n", 7);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
}

static void client_recv_close(void *arg)
{
	struct pt_ep c = C4, s = S4;

	(void)arg;
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &c, &s, "200 OK\n", 7);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void check_exchange(struct cwrap_pcap *cap)
{
	struct pt_ep c = C4, s = S4;
	struct cwrap_pcap_pkt *k = cap->pkts;
	uint32_t ic, is;

	assert_int_equal(cap->n, 9);
	ic = k[0].seq;
	is = k[1].seq;
	pt_assert_tcp(&k[0], &c, &s, F_SYN, ic, 0, NULL, 0);
	pt_assert_tcp(&k[1], &s, &c, F_SYN | F_ACK, is, ic + 1, NULL, 0);
	pt_assert_tcp(&k[2], &c, &s, F_ACK, ic + 1, is + 1, NULL, 0);
	pt_assert_tcp(&k[3], &c, &s, F_PSH | F_ACK, ic + 1, is + 1, "GET /\n",
		      6);
	pt_assert_tcp(&k[4], &s, &c, F_PSH | F_ACK, is + 1, ic + 7, "200 OK\n",
		      7);
	pt_assert_tcp(&k[5], &s, &c, F_FIN | F_ACK, is + 8, ic + 7, NULL, 0);
	pt_assert_tcp(&k[6], &c, &s, F_ACK, ic + 7, is + 9, NULL, 0);
	pt_assert_tcp(&k[7], &c, &s, F_FIN | F_ACK, ic + 7, is + 9, NULL, 0);
	pt_assert_tcp(&k[8], &s, &c, F_ACK, is + 9, ic + 8, NULL, 0);
}

static void test_both_ends(void **state)
{
	struct pt_run run;

	(void)state;
	/* client first */
	pt_capture(&run, NULL, client_connect_send, NULL);
	pt_capture_more(&run, NULL, server_accept_serve, NULL);
	pt_capture_in(&run, 0, client_recv_close, NULL);
	assert_non_null(run.cap);
	check_exchange(run.cap);
	pt_run_free(&run);

	/* the server's accept() returned first */
	pt_capture(&run, NULL, server_accept_serve, NULL);
	pt_capture_more(&run, NULL, client_connect_send, NULL);
	pt_capture_in(&run, 1, client_recv_close, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 9);
	/* same packets; the server recorded the request from its RECV
	 * before the client's SEND was reported */
	{
		struct pt_ep c = C4, s = S4;
		struct cwrap_pcap_pkt *k = run.cap->pkts;
		uint32_t ic = k[0].seq, is = k[1].seq;

		pt_assert_tcp(&k[0], &c, &s, F_SYN, ic, 0, NULL, 0);
		pt_assert_tcp(&k[3], &c, &s, F_PSH | F_ACK, ic + 1, is + 1,
			      "GET /\n", 6);
		pt_assert_tcp(&k[4], &s, &c, F_PSH | F_ACK, is + 1, ic + 7,
			      "200 OK\n", 7);
		pt_assert_tcp(&k[8], &s, &c, F_ACK, is + 9, ic + 8, NULL, 0);
	}
	pt_run_free(&run);
}

/* Only the server captures: its RECV records the client's data. */
static void server_only(void *arg)
{
	struct pt_ep c = C4, s = S4;

	(void)arg;
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &s, &c, "GET /\n", 6);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &s, &c, "x", 1);
}

static void test_receiver_only(void **state)
{
	struct pt_ep c = C4, s = S4;
	struct cwrap_pcap_pkt *k;
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, server_only, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 5);
	k = run.cap->pkts;
	pt_assert_tcp(&k[0], &c, &s, F_SYN, k[0].seq, 0, NULL, 0);
	pt_assert_tcp(&k[3], &c, &s, F_PSH | F_ACK, k[0].seq + 1, k[1].seq + 1,
		      "GET /\n", 6);
	pt_assert_tcp(&k[4], &c, &s, F_PSH | F_ACK, k[0].seq + 7, k[1].seq + 1,
		      "x", 1);
	pt_run_free(&run);
}

/* Only the client captures two connections over the same addresses. */
static void client_twice(void *arg)
{
	(void)arg;
	client_connect_send(NULL);
	client_recv_close(NULL);
	client_connect_send(NULL);
}

static void test_reused_addresses(void **state)
{
	struct pt_ep c = C4, s = S4;
	struct cwrap_pcap_pkt *k;
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, client_twice, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 4 + 1 + 2 + 4);
	k = run.cap->pkts;
	pt_assert_tcp(&k[7], &c, &s, F_SYN, k[7].seq, 0, NULL, 0);
	pt_assert_tcp(&k[10], &c, &s, F_PSH | F_ACK, k[7].seq + 1, k[8].seq + 1,
		      "GET /\n", 6);
	pt_run_free(&run);
}

/* A forking server: the parent accepts, forks, closes its copy; the child
 * serves and closes. The FIN comes after the child's data, once. */
static void forking_server(void *arg)
{
	struct pt_ep c = C4, s = S4;
	int sync[2], status;
	pid_t child;
	char x;

	(void)arg;
	if (pipe(sync) != 0) {
		_exit(2);
	}
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	child = fork();
	if (child == 0) {
		if (read(sync[0], &x, 1) != 1) {
			_exit(2);
		}
		pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &s, &c, "GET /\n", 6);
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "200 OK\n", 7);
		pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
		_exit(0);
	}
	/* the parent's close comes first */
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
	if (write(sync[1], "g", 1) != 1 ||
	    waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		_exit(3);
	}
	/* a zombie does not hold anything: a second connection whose
	 * forked child exited unreaped */
	{
		struct pt_ep c2 = pt_ep(4, 100, 41002);

		pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c2, NULL, 0);
		child = fork();
		if (child == 0) {
			_exit(0);
		}
		/* until it has exited, left unreaped (WNOWAIT) */
		{
			siginfo_t si;

			if (waitid(P_PID, (id_t)child, &si,
				   WEXITED | WNOWAIT) != 0) {
				_exit(3);
			}
		}
		pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c2, NULL, 0);
		waitpid(child, &status, 0);
	}
	/* inetd: the child exits (or execs) without a close the wrapper
	 * sees; its FIN is recorded at the next accept, before it */
	{
		struct pt_ep c3 = pt_ep(4, 100, 41003);
		struct pt_ep c4 = pt_ep(4, 100, 41004);

		pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c3, NULL, 0);
		child = fork();
		if (child == 0) {
			if (read(sync[0], &x, 1) != 1) {
				_exit(2);
			}
			_exit(0);
		}
		pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c3, NULL, 0);
		if (write(sync[1], "g", 1) != 1 ||
		    waitpid(child, &status, 0) != child) {
			_exit(3);
		}
		pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c4, NULL, 0);
	}
}

static void test_forking_server(void **state)
{
	struct pt_ep c = C4, s = S4, c2 = pt_ep(4, 100, 41002);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	uint32_t ic, is;

	(void)state;
	pt_capture(&run, NULL, forking_server, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3 + 2 + 2 + 3 + 2 + 3 + 3 + 2);
	k = run.cap->pkts;
	ic = k[0].seq;
	is = k[1].seq;
	pt_assert_tcp(&k[3], &c, &s, F_PSH | F_ACK, ic + 1, is + 1, "GET /\n",
		      6);
	pt_assert_tcp(&k[4], &s, &c, F_PSH | F_ACK, is + 1, ic + 7, "200 OK\n",
		      7);
	pt_assert_tcp(&k[5], &s, &c, F_FIN | F_ACK, is + 8, ic + 7, NULL, 0);
	pt_assert_tcp(&k[6], &c, &s, F_ACK, ic + 7, is + 9, NULL, 0);
	pt_assert_tcp(&k[7], &c2, &s, F_SYN, k[7].seq, 0, NULL, 0);
	pt_assert_tcp(&k[10], &s, &c2, F_FIN | F_ACK, k[8].seq + 1,
		      k[7].seq + 1, NULL, 0);
	/* c3's handshake, c3's late FIN, then c4's handshake */
	{
		struct pt_ep c3 = pt_ep(4, 100, 41003);
		struct pt_ep c4 = pt_ep(4, 100, 41004);

		pt_assert_tcp(&k[12], &c3, &s, F_SYN, k[12].seq, 0, NULL, 0);
		pt_assert_tcp(&k[15], &s, &c3, F_FIN | F_ACK, k[13].seq + 1,
			      k[12].seq + 1, NULL, 0);
		pt_assert_tcp(&k[16], &c3, &s, F_ACK, k[12].seq + 1,
			      k[13].seq + 2, NULL, 0);
		pt_assert_tcp(&k[17], &c4, &s, F_SYN, k[17].seq, 0, NULL, 0);
	}
	pt_run_free(&run);
}

/* How a holder's end is recorded when it ends without a close: at
 * exit() by its destructor, at once; after _exit() at the next event of
 * any process, before that event's packets. */
static void child_exits(void *arg)
{
	struct pt_ep c = C4, s = S4;
	int status;
	pid_t child;

	(void)arg;
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	child = fork();
	if (child == 0) {
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "bye\n", 4);
		exit(0); /* the destructor records the FIN */
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
		_exit(3);
	}
}

static void client_exits(void *arg)
{
	struct pt_ep c2 = pt_ep(4, 100, 41002), s = S4;
	pid_t child;
	int status;

	(void)arg;
	child = fork();
	if (child == 0) {
		pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c2, &s, NULL, 0);
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c2, &s, "hi\n", 3);
		_exit(0); /* no destructor */
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
		_exit(3);
	}
}

static void server_closes(void *arg)
{
	struct pt_ep c2 = pt_ep(4, 100, 41002), s = S4;

	(void)arg;
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c2, NULL, 0);
}

static void test_holder_exits(void **state)
{
	struct pt_ep c = C4, s = S4, c2 = pt_ep(4, 100, 41002);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, child_exits, NULL);
	assert_non_null(run.cap);
	/* handshake, data, the FIN and its ACK: no later event needed */
	assert_int_equal(run.cap->n, 3 + 1 + 2);
	k = run.cap->pkts;
	pt_assert_tcp(&k[3], &s, &c, F_PSH | F_ACK, k[1].seq + 1, k[0].seq + 1,
		      "bye\n", 4);
	pt_assert_tcp(&k[4], &s, &c, F_FIN | F_ACK, k[1].seq + 5, k[0].seq + 1,
		      NULL, 0);
	pt_assert_tcp(&k[5], &c, &s, F_ACK, k[0].seq + 1, k[1].seq + 6, NULL,
		      0);

	/* a client _exit()s: nothing is recorded until another process's
	 * next event, which records the client's FIN first */
	pt_capture_more(&run, NULL, client_exits, NULL);
	assert_int_equal(run.cap->n, 6 + 3 + 1);
	pt_capture_more(&run, NULL, server_closes, NULL);
	assert_int_equal(run.cap->n, 10 + 2 + 2);
	k = run.cap->pkts;
	pt_assert_tcp(&k[10], &c2, &s, F_FIN | F_ACK, k[6].seq + 4,
		      k[7].seq + 1, NULL, 0);
	pt_assert_tcp(&k[12], &s, &c2, F_FIN | F_ACK, k[7].seq + 1,
		      k[6].seq + 5, NULL, 0);
	pt_run_free(&run);
}

/* A fork that fails leaves no child holding anything: the parent's close
 * is the end (as unprivileged, RLIMIT_NPROC 0 makes fork() fail; root
 * forks anyway, and the child leaves at once). errno is fork()'s. */
static void failed_fork(void *arg)
{
	struct pt_ep c = C4, s = S4;
	struct rlimit rl = {0, 0};
	pid_t child;
	int status;

	(void)arg;
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	if (setrlimit(RLIMIT_NPROC, &rl) != 0) {
		_exit(3);
	}
	errno = 1234;
	child = fork();
	if (child == 0) {
		_exit(errno == 1234 ? 0 : 4);
	}
	if (child < 0 && errno != EAGAIN) {
		_exit(5);
	}
	if (child > 0 &&
	    (errno != 1234 || waitpid(child, &status, 0) != child ||
	     !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		_exit(6);
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
}

static void test_failed_fork(void **state)
{
	struct pt_ep c = C4, s = S4;
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, failed_fork, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3 + 2);
	pt_assert_tcp(&run.cap->pkts[3], &s, &c, F_FIN | F_ACK,
		      run.cap->pkts[1].seq + 1, run.cap->pkts[0].seq + 1, NULL,
		      0);
	pt_run_free(&run);
}

/* ---- UDP, both ends ------------------------------------------------- */

static void udp_client_send(void *arg)
{
	struct pt_ep c = pt_ep(6, 100, 41001), s = pt_ep(6, 10, 53);

	(void)arg;
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "query", 5);
}

static void udp_server(void *arg)
{
	struct pt_ep c = pt_ep(6, 100, 41001), s = pt_ep(6, 10, 53);

	(void)arg;
	pt_event(SWRAP_PCAP_RECV, SOCK_DGRAM, &s, &c, "query", 5);
	pt_event(SWRAP_PCAP_RECV, SOCK_DGRAM, &s, &c, "second", 6);
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &s, &c, "answer", 6);
}

static void udp_client_recv(void *arg)
{
	struct pt_ep c = pt_ep(6, 100, 41001), s = pt_ep(6, 10, 53);

	(void)arg;
	pt_event(SWRAP_PCAP_RECV, SOCK_DGRAM, &c, &s, "answer", 6);
}

static void test_udp_both_ends(void **state)
{
	struct pt_ep c = pt_ep(6, 100, 41001), s = pt_ep(6, 10, 53);
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, udp_client_send, NULL);
	pt_capture_more(&run, NULL, udp_server, NULL);
	pt_capture_more(&run, NULL, udp_client_recv, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3);
	pt_assert_udp(&run.cap->pkts[0], &c, &s, "query", 5);
	/* the second datagram's sender did not capture it */
	pt_assert_udp(&run.cap->pkts[1], &c, &s, "second", 6);
	pt_assert_udp(&run.cap->pkts[2], &s, &c, "answer", 6);
	pt_run_free(&run);
}

/* ---- processes racing ----------------------------------------------- */

/* Start `n` children that wait on a pipe, release them at once, wait for
 * them; each runs fn(i). */
static void run_racing(int n, void (*fn)(int))
{
	pid_t pids[16];
	int gate[2], i, status;
	char c;

	assert_true(n <= 16);
	assert_int_equal(pipe(gate), 0);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(gate[1]);
			if (read(gate[0], &c, 1) != 0) {
				_exit(2);
			}
			fn(i);
			_exit(0);
		}
	}
	close(gate[0]);
	usleep(20000);
	close(gate[1]);
	for (i = 0; i < n; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

static void race_one(int i)
{
	struct pt_ep c = pt_ep(4, 100, (uint16_t)(42000 + i));
	struct pt_ep s = pt_ep(4, 10, 53);

	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "race", 4);
}

static void race_header(void *arg)
{
	(void)arg;
	run_racing(8, race_one);
}

static void test_header_race(void **state)
{
	int round;

	(void)state;
	for (round = 0; round < 10; round++) {
		struct pt_run run;
		struct stat st;
		bool seen[8] = {false};
		size_t i;

		pt_capture(&run, NULL, race_header, NULL);
		assert_non_null(run.cap);
		assert_int_equal(run.cap->n, 8);
		assert_int_equal(stat(run.path, &st), 0);
		assert_int_equal(st.st_size, 24 + 8 * (16 + 20 + 8 + 4));
		for (i = 0; i < 8; i++) {
			struct pt_ep c, s = pt_ep(4, 10, 53);
			int who = run.cap->pkts[i].sport - 42000;

			assert_true(who >= 0 && who < 8 && !seen[who]);
			seen[who] = true;
			c = pt_ep(4, 100, (uint16_t)(42000 + who));
			pt_assert_udp(&run.cap->pkts[i], &c, &s, "race", 4);
		}
		pt_run_free(&run);
	}
}

/* Three processes send on one connection (and each on a UDP flow and a
 * connection of its own) at once. */
#define NPROC 3
#define NMSG 300
#define SHARED_C pt_ep(4, 100, 43000)
#define SHARED_S pt_ep(4, 10, 445)

static size_t msg_len(int p, int m)
{
	return 5 + (size_t)((p * 977 + m * 131) % 3000);
}

static void msg_fill(uint8_t *b, int p, int m)
{
	size_t len = msg_len(p, m), j;

	b[0] = (uint8_t)p;
	b[1] = (uint8_t)(m >> 8);
	b[2] = (uint8_t)m;
	b[3] = (uint8_t)(len >> 8);
	b[4] = (uint8_t)len;
	for (j = 5; j < len; j++) {
		b[j] = (uint8_t)(p * 7 + m + j);
	}
}

static void sender(int p)
{
	struct pt_ep c = SHARED_C, s = SHARED_S;
	struct pt_ep uc = pt_ep(4, 101 + p, 44000), us = pt_ep(4, 10, 53);
	struct pt_ep tc = pt_ep(4, 101 + p, 45000), ts = pt_ep(4, 10, 80);
	uint8_t buf[4096];
	char dg[32];
	int m;

	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &tc, &ts, NULL, 0);
	for (m = 0; m < NMSG; m++) {
		msg_fill(buf, p, m);
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, buf,
			 msg_len(p, m));
		snprintf(dg, sizeof(dg), "u%d:%d", p, m);
		pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &uc, &us, dg, strlen(dg));
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &tc, &ts, dg,
			 strlen(dg));
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &tc, &ts, NULL, 0);
}

static void three_at_once(void *arg)
{
	struct pt_ep c = SHARED_C, s = SHARED_S;

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	run_racing(NPROC, sender);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &c, &s, "done", 4);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void test_three_processes(void **state)
{
	struct pt_ep c = SHARED_C, s = SHARED_S;
	size_t total = 0, off, i, n_syn = 0, n_fin = 0;
	int udp_next[NPROC] = {0}, tcp_next[NPROC] = {0};
	uint32_t ic = 0, is = 0, iso[NPROC] = {0}, next_o[NPROC] = {0};
	bool seen[NPROC][NMSG];
	uint8_t *stream, want[4096];
	struct pt_run run;
	int p, m;

	(void)state;
	memset(seen, 0, sizeof(seen));
	for (p = 0; p < NPROC; p++) {
		for (m = 0; m < NMSG; m++) {
			total += msg_len(p, m);
		}
	}
	stream = malloc(total);
	pt_capture(&run, NULL, three_at_once, NULL);
	assert_non_null(run.cap);
	off = 0;
	for (i = 0; i < run.cap->n; i++) {
		struct cwrap_pcap_pkt *k = &run.cap->pkts[i];

		assert_true(k->ip_csum_ok && k->l4_csum_ok);
		assert_int_equal(k->caplen, k->ip_len);
		if (k->proto == 17) {
			char dg[32];

			p = k->src[3] - 101;
			assert_true(p >= 0 && p < NPROC);
			snprintf(dg, sizeof(dg), "u%d:%d", p, udp_next[p]++);
			assert_int_equal(k->payload_len, strlen(dg));
			assert_memory_equal(k->payload, dg, strlen(dg));
			continue;
		}
		assert_int_equal(k->proto, 6);
		if (k->sport == 45000 || k->dport == 45000) {
			/* each sender's own connection */
			p = (k->sport == 45000 ? k->src[3] : k->dst[3]) - 101;
			if (k->tcp_flags == F_SYN) {
				iso[p] = k->seq + 1;
				next_o[p] = iso[p];
			} else if (k->sport == 45000 && k->payload_len > 0) {
				char dg[32];

				snprintf(dg, sizeof(dg), "u%d:%d", p,
					 tcp_next[p]++);
				assert_int_equal(k->seq, next_o[p]);
				assert_memory_equal(k->payload, dg, strlen(dg));
				next_o[p] += (uint32_t)k->payload_len;
			}
			continue;
		}
		if (k->tcp_flags == F_SYN) {
			ic = k->seq;
			n_syn++;
		} else if (k->tcp_flags == (F_SYN | F_ACK)) {
			is = k->seq;
		} else if (k->sport == 43000 && k->payload_len > 0) {
			/* contiguous: each byte once, in order */
			pt_assert_tcp(k, &c, &s, k->tcp_flags,
				      ic + 1 + (uint32_t)off, is + 1,
				      k->payload, k->payload_len);
			assert_true(off + k->payload_len <= total);
			memcpy(stream + off, k->payload, k->payload_len);
			off += k->payload_len;
		} else if (k->tcp_flags & F_FIN) {
			n_fin++;
			pt_assert_tcp(k, &c, &s, F_FIN | F_ACK,
				      ic + 1 + (uint32_t)total, is + 5, NULL,
				      0);
		}
	}
	assert_int_equal(n_syn, 1);
	assert_int_equal(n_fin, 1);
	assert_int_equal(off, total);
	for (p = 0; p < NPROC; p++) {
		assert_int_equal(udp_next[p], NMSG);
		assert_int_equal(tcp_next[p], NMSG);
	}
	/* the stream is the messages, whole, each exactly once, each
	 * process's in its order */
	{
		int last[NPROC] = {-1, -1, -1};

		for (off = 0; off < total;) {
			p = stream[off];
			m = (stream[off + 1] << 8) | stream[off + 2];
			assert_true(p < NPROC && m < NMSG);
			assert_false(seen[p][m]);
			assert_int_equal(m, last[p] + 1);
			seen[p][m] = true;
			last[p] = m;
			msg_fill(want, p, m);
			assert_memory_equal(stream + off, want, msg_len(p, m));
			off += msg_len(p, m);
		}
	}
	free(stream);
	pt_run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both_ends),
	    cmocka_unit_test(test_receiver_only),
	    cmocka_unit_test(test_reused_addresses),
	    cmocka_unit_test(test_forking_server),
	    cmocka_unit_test(test_holder_exits),
	    cmocka_unit_test(test_failed_fork),
	    cmocka_unit_test(test_udp_both_ends),
	    cmocka_unit_test(test_header_race),
	    cmocka_unit_test(test_three_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
