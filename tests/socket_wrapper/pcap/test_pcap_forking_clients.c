/*
 * Capture of a forking server with several clients connected at once,
 * every process capturing into one file (the wrapper preloaded). The
 * server accepts, forks a child per connection and closes its copy; the
 * child reads the request, sends the response and ends in one of several
 * ways (close, or none the wrapper sees; exit() or _exit()). Each client
 * reads to EOF and records what it sent and received.
 *
 * Judged with the project's pcap reader: every connection of the capture
 * has one handshake, each direction's bytes exactly once with contiguous
 * sequence numbers and equal to what was sent and received, and one FIN
 * per direction, after the last data of that direction. Then by tshark
 * (no analysis flag, no expert error).
 *
 * test_two_children_race makes the order of issue 14 certain: two
 * children of the listener forked close together, the second one reaching
 * the wrapper first (a pthread_atfork child hook delays the first), a
 * third connection accepted before the first child sends its response.
 */
#include "swrap_test.h"
#include "pcap_reader.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define SRV_ADDR "127.0.0.10"
#define SRV_PORT 7 /* echo: tshark shows the bytes as they are */
#define CLI_PORT0 20000
#define MAX_CONNS 256
#define MAX_DATA 16384

/* How a server child ends (request word `how`, bits 0-1) and how a client
 * ends (bit 2). */
#define END_CLOSE_EXIT 0  /* close(), exit() */
#define END_CLOSE__EXIT 1 /* close(), _exit() */
#define END_EXIT 2	  /* exit() without close: the destructor's FIN */
#define END__EXIT 3	  /* _exit() without close: FIN at a later event */
#define CLIENT_NO_CLOSE 4 /* the client _exit()s after EOF, no close() */

/* ---- the scenario processes ----------------------------------------- */

static const char *g_dir;
static int g_delay_fd = -1; /* the hook waits for a byte from it */
static bool g_delay_next;   /* the next child forked waits in the hook */
static unsigned g_delay_us; /* ... or sleeps this long */
static int g_ready_fd = -1; /* the next server child says it runs */

static void child_hook(void)
{
	char b;

	if (g_delay_next) {
		g_delay_next = false;
		while (read(g_delay_fd, &b, 1) < 0 && errno == EINTR) {
		}
	}
	if (g_delay_us != 0) {
		usleep(g_delay_us);
		g_delay_us = 0;
	}
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return false;
		}
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* Read exactly n bytes (n == 0: up to EOF into buf of `cap`); returns the
 * count, -1 on error or short read. */
static ssize_t read_n(int fd, void *buf, size_t n, size_t cap)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (n == 0 ? got < cap : got < n) {
		ssize_t r = read(fd, p + got, (n == 0 ? cap : n) - got);

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			return -1;
		}
		if (r == 0) {
			return n == 0 ? (ssize_t)got : -1;
		}
		got += (size_t)r;
	}
	return (ssize_t)got;
}

struct req {
	uint32_t req_len; /* including this header */
	uint32_t resp_len;
	uint32_t how;
	uint32_t seed;
};

/* Server child: serve one connection, then end as the request says. */
static void serve(int fd)
{
	static uint8_t buf[MAX_DATA];
	struct req r;

	if (read_n(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    r.req_len < sizeof(r) || r.req_len > MAX_DATA ||
	    r.resp_len > MAX_DATA ||
	    read_n(fd, buf, r.req_len - sizeof(r), 0) !=
		(ssize_t)(r.req_len - sizeof(r))) {
		_exit(10);
	}
	pattern(buf, r.resp_len, r.seed ^ 0x5a5a5a5au);
	if (!write_all(fd, buf, r.resp_len)) {
		_exit(11);
	}
	switch (r.how & 3) {
	case END_CLOSE_EXIT:
		close(fd);
		exit(0);
	case END_CLOSE__EXIT:
		close(fd);
		_exit(0);
	case END_EXIT:
		exit(0);
	default:
		_exit(0);
	}
}

/* Client `idx`: bound to 127.0.0.100:CLI_PORT0+idx, connect, wait for a
 * byte on `go` (if >= 0), send the request, read to EOF, write
 * <dir>/c<idx> (request, then response), end. */
static void client(int idx, uint32_t req_len, uint32_t resp_len, uint32_t how,
		   int go)
{
	static uint8_t sent[MAX_DATA], got[MAX_DATA];
	struct sockaddr_storage ss;
	socklen_t len;
	struct req r = {req_len, resp_len, how, 0x1234567u * (uint32_t)idx};
	ssize_t n;
	char path[4096], b;
	FILE *f;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	len = swrap_test_sa("127.0.0.100", CLI_PORT0 + idx, &ss);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0) {
		_exit(20);
	}
	len = swrap_test_sa(SRV_ADDR, SRV_PORT, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		_exit(21);
	}
	if (go >= 0 && read(go, &b, 1) != 1) {
		_exit(22);
	}
	memcpy(sent, &r, sizeof(r));
	pattern(sent + sizeof(r), req_len - sizeof(r), r.seed);
	if (!write_all(fd, sent, req_len)) {
		_exit(23);
	}
	n = read_n(fd, got, 0, sizeof(got));
	if (n < 0) {
		_exit(24);
	}
	snprintf(path, sizeof(path), "%s/c%d", g_dir, idx);
	f = fopen(path, "w");
	if (f == NULL || fwrite(sent, 1, req_len, f) != req_len ||
	    fwrite(got, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) {
		_exit(25);
	}
	if (!(how & CLIENT_NO_CLOSE)) {
		close(fd);
	}
	_exit(0);
}

static pid_t spawn_client(int idx, uint32_t req_len, uint32_t resp_len,
			  uint32_t how, int go)
{
	pid_t pid = fork();

	if (pid == 0) {
		client(idx, req_len, resp_len, how, go);
	}
	return pid;
}

static int listener(void)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(SRV_ADDR, SRV_PORT, &ss);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0) {
		exit(30);
	}
	return fd;
}

/* Accept one connection and fork its server child; the parent closes its
 * copy. Returns the child. */
static pid_t accept_fork(int ls)
{
	int fd = accept(ls, NULL, NULL);
	pid_t pid;

	if (fd < 0) {
		exit(31);
	}
	pid = fork();
	if (pid < 0) {
		exit(32);
	}
	if (pid == 0) {
		close(ls);
		if (g_ready_fd >= 0 && write(g_ready_fd, "r", 1) != 1) {
			_exit(12);
		}
		serve(fd);
	}
	close(fd);
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "process %d ended with status 0x%x\n", (int)pid,
			status);
		exit(33);
	}
}

/* Test process side: run `fn` in a new process capturing into
 * <dir>/cap.pcap, with the fork hook registered before the wrapper
 * registers its own; assert it ended well and return what `fn` returned
 * (the number of clients it ran, at most 150: the process exits with
 * 100 more, its failures with less). */
static int run_scenario(const char *dir, int (*fn)(void))
{
	char *cap = cwrap_test_path(dir, "cap.pcap");
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		g_dir = dir;
		if (pthread_atfork(NULL, NULL, child_hook) != 0 ||
		    setenv("SOCKET_WRAPPER_PCAP_FILE", cap, 1) != 0) {
			_exit(40);
		}
		exit(100 + fn());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_in_range(WEXITSTATUS(status), 101, 250);
	free(cap);
	return WEXITSTATUS(status) - 100;
}

/* ---- judging the capture -------------------------------------------- */

struct half {
	uint8_t data[MAX_DATA];
	size_t len;
	uint32_t isn;
	int nfin;
	size_t fin_at;
};

struct conn {
	uint16_t cport;
	bool syn_ack;
	struct half d[2]; /* 0: client -> server, 1: server -> client */
};

static struct conn conns[MAX_CONNS];

static void check_capture(const char *dir, int nclients)
{
	char *path = cwrap_test_path(dir, "cap.pcap");
	struct cwrap_pcap *cap = cwrap_pcap_read(path);
	int nconn = 0, i, cur[MAX_CONNS];
	size_t k;

	assert_non_null(cap);
	memset(conns, 0, sizeof(conns));
	for (i = 0; i < MAX_CONNS; i++) {
		cur[i] = -1;
	}
	for (k = 0; k < cap->n; k++) {
		struct cwrap_pcap_pkt *p = &cap->pkts[k];
		int dir_ = p->sport == SRV_PORT;
		uint16_t cport = dir_ ? p->dport : p->sport;
		int ci = cport - CLI_PORT0;
		struct half *h;
		struct conn *c;

		assert_true(p->ip_csum_ok && p->l4_csum_ok);
		assert_int_equal(p->proto, 6);
		assert_true(ci >= 0 && ci < nclients);
		if (p->tcp_flags == 0x02) { /* a new connection */
			assert_int_equal(cur[ci], -1);
			assert_true(nconn < MAX_CONNS);
			cur[ci] = nconn++;
			c = &conns[cur[ci]];
			c->cport = cport;
			c->d[0].isn = p->seq;
			continue;
		}
		assert_true(cur[ci] >= 0);
		c = &conns[cur[ci]];
		h = &c->d[dir_];
		if (p->tcp_flags == 0x12) {
			assert_false(c->syn_ack);
			c->syn_ack = true;
			h->isn = p->seq;
			continue;
		}
		assert_true(c->syn_ack);
		if (p->payload_len > 0) {
			if (h->nfin != 0) {
				fail_msg(
				    "client port %u, %s: %zu bytes at packet "
				    "%zu, after the FIN at packet %zu",
				    cport,
				    dir_ ? "server->client" : "client->server",
				    p->payload_len, k + 1, h->fin_at + 1);
			}
			assert_int_equal(p->seq, h->isn + 1 + (uint32_t)h->len);
			assert_true(h->len + p->payload_len <= MAX_DATA);
			memcpy(h->data + h->len, p->payload, p->payload_len);
			h->len += p->payload_len;
		}
		if (p->tcp_flags & 0x01) {
			assert_int_equal(p->seq, h->isn + 1 + (uint32_t)h->len);
			h->nfin++;
			h->fin_at = k;
		}
		assert_false(p->tcp_flags & 0x04); /* no RST */
	}
	assert_int_equal(nconn, nclients);
	for (i = 0; i < nconn; i++) {
		struct conn *c = &conns[i];
		char name[32];
		size_t flen;
		uint8_t *want;
		struct req r;

		snprintf(name, sizeof(name), "c%d", c->cport - CLI_PORT0);
		{
			char *p = cwrap_test_path(dir, name);

			want = (uint8_t *)cwrap_test_read_file(p, &flen);
			free(p);
		}
		assert_non_null(want);
		assert_true(flen >= sizeof(r));
		memcpy(&r, want, sizeof(r));
		if (c->d[0].nfin != 1 || c->d[1].nfin != 1) {
			fail_msg(
			    "client port %u: %d FIN(s) from the client, %d "
			    "from the server (server child ending %u)",
			    c->cport, c->d[0].nfin, c->d[1].nfin, r.how);
		}
		assert_int_equal(c->d[0].len, r.req_len);
		assert_memory_equal(c->d[0].data, want, r.req_len);
		assert_int_equal(c->d[1].len, flen - r.req_len);
		assert_memory_equal(c->d[1].data, want + r.req_len,
				    flen - r.req_len);
		free(want);
	}
	cwrap_pcap_free(cap);

	{
		const char *src = getenv("CWRAP_SOURCE_DIR");
		char cmd[8192];

		assert_non_null(src);
		snprintf(cmd, sizeof(cmd),
			 "%s/tests/socket_wrapper/pcap/tshark_check.sh %s "
			 "'tcp.flags.fin==1' > %s/tshark.out 2>&1 || "
			 "{ cat %s/tshark.out; exit 1; }",
			 src, path, dir, dir);
		assert_int_equal(cwrap_test_system_unwrapped(cmd), 0);
	}
	free(path);
}

/* ---- the scenarios --------------------------------------------------- */

static int two_children_race(void)
{
	int ls = listener(), release[2], ready[2], go[2];
	pid_t ca, cb, cd, c1, c2, c3;
	char b;

	if (pipe(release) != 0 || pipe(ready) != 0 || pipe(go) != 0) {
		exit(50);
	}
	g_delay_fd = release[0];
	ca = spawn_client(0, 100, 3000, END_CLOSE_EXIT, go[0]);
	/* A's child waits in the fork hook, before the wrapper's. */
	g_delay_next = true;
	g_ready_fd = ready[1];
	c1 = accept_fork(ls);
	g_delay_next = false;
	g_ready_fd = -1;
	cb = spawn_client(1, 100, 3000, END_CLOSE_EXIT, -1);
	c2 = accept_fork(ls);
	/* B is done before A's child even reached the wrapper. */
	reap(c2);
	reap(cb);
	if (write(release[1], "r", 1) != 1 || read(ready[0], &b, 1) != 1) {
		exit(52);
	}
	/* A third connection while A's child waits for its request. */
	cd = spawn_client(2, 100, 3000, END_CLOSE_EXIT, -1);
	c3 = accept_fork(ls);
	reap(c3);
	reap(cd);
	if (write(go[1], "g", 1) != 1) {
		exit(53);
	}
	reap(c1);
	reap(ca);
	close(ls);
	return 3;
}

static void test_two_children_race(void **state)
{
	char *dir = swrap_test_setup("100");

	(void)state;
	assert_int_equal(run_scenario(dir, two_children_race), 3);
	check_capture(dir, 3);
	swrap_test_teardown(dir);
}

#define ROUNDS 20
#define AT_ONCE 4

/* ROUNDS rounds, fewer where forks are slow (cwrap_test_rounds:
 * valgrind); returns the number of clients. */
static int many_rounds(void)
{
	int ls = listener(), idx = 0;
	pid_t clients[AT_ONCE], children[AT_ONCE];
	struct cwrap_test_rounds rounds = cwrap_test_rounds_start(3, ROUNDS);

	while (cwrap_test_rounds_next(&rounds)) {
		for (int i = 0; i < AT_ONCE; i++, idx++) {
			uint32_t how = (uint32_t)(idx % 4) |
				       (idx % 3 == 0 ? CLIENT_NO_CLOSE : 0);

			clients[i] = spawn_client(
			    idx, 16 + (uint32_t)(idx * 37 % 2000),
			    (uint32_t)(idx * 1031 % 6000), how, -1);
		}
		for (int i = 0; i < AT_ONCE; i++) {
			/* The first child of a round is slow to start. */
			g_delay_us = i == 0 ? 3000 : 0;
			children[i] = accept_fork(ls);
			g_delay_us = 0;
		}
		for (int i = 0; i < AT_ONCE; i++) {
			reap(children[i]);
			reap(clients[i]);
		}
	}
	close(ls);
	return idx;
}

static void test_many_rounds(void **state)
{
	char *dir = swrap_test_setup("100");

	(void)state;
	check_capture(dir, run_scenario(dir, many_rounds));
	swrap_test_teardown(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_children_race),
	    cmocka_unit_test(test_many_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
