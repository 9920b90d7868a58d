/*
 * Helpers of the capture writer's unit tests (see pcap_test_util.h).
 */
#include "pcap_test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The capture follows the variables as the socket core's configuration
 * (swrap_init.c, which also defines cwrap_lib) reads them: as the core
 * does, an event is reported after swrap_pcap_enabled() asked. */

struct pt_ep pt_ep(int family, int iface, uint16_t port)
{
	struct pt_ep e;

	memset(&e, 0, sizeof(e));
	e.family = family;
	e.port = port;
	if (family == 4) {
		struct sockaddr_in in;

		memset(&in, 0, sizeof(in));
		in.sin_family = AF_INET;
		in.sin_port = htons(port);
		in.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)iface);
		memcpy(&e.ss, &in, sizeof(in));
		e.len = sizeof(in);
		memcpy(e.addr, &in.sin_addr, 4);
	} else {
		struct sockaddr_in6 in6;
		char buf[64];

		memset(&in6, 0, sizeof(in6));
		in6.sin6_family = AF_INET6;
		in6.sin6_port = htons(port);
		snprintf(buf, sizeof(buf), "fd00::5357:5f%02x", iface);
		assert_int_equal(inet_pton(AF_INET6, buf, &in6.sin6_addr), 1);
		memcpy(&e.ss, &in6, sizeof(in6));
		e.len = sizeof(in6);
		memcpy(e.addr, &in6.sin6_addr, 16);
	}
	return e;
}

void pt_event(enum swrap_pcap_event ev, int sotype, const struct pt_ep *local,
	      const struct pt_ep *peer, const void *data, size_t len)
{
	struct iovec iov = {.iov_base = (void *)(uintptr_t)data,
			    .iov_len = len};

	(void)swrap_pcap_enabled();
	swrap_pcap_event(ev, sotype, (const struct sockaddr *)&local->ss,
			 local->len, (const struct sockaddr *)&peer->ss,
			 peer->len, data != NULL ? &iov : NULL,
			 data != NULL ? 1 : 0, len);
}

struct pt_step {
	void (*fn)(void *);
	void *arg;
};

/* A step process: run the steps it is sent, until EOF. */
static void step_loop(const char *errpath, int cmd, int done)
{
	struct pt_step st;

	while (read(cmd, &st, sizeof(st)) == (ssize_t)sizeof(st)) {
		if (freopen(errpath, "w", stderr) == NULL) {
			_exit(2);
		}
		st.fn(st.arg);
		fflush(stderr);
		if (write(done, "k", 1) != 1) {
			/* fn closed every descriptor */
			_exit(0);
		}
	}
	_exit(0);
}

/* Run (fn, arg) in step process i, wait until it returned, read back. */
static void run_step(struct pt_run *run, int i, void (*fn)(void *), void *arg)
{
	struct pt_step st = {fn, arg};
	char errpath[4096], ok;
	int status;

	snprintf(errpath, sizeof(errpath), "%s/stderr", run->dir);
	assert_true(i >= 0 && i < run->nsteps && run->pids[i] > 0);
	assert_int_equal(write(run->cmd[i], &st, sizeof(st)), sizeof(st));
	if (read(run->done[i], &ok, 1) != 1) {
		/* fn failed (or closed the pipe): the process exited */
		assert_int_equal(waitpid(run->pids[i], &status, 0),
				 run->pids[i]);
		run->pids[i] = 0;
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	free(run->stderr_text);
	run->stderr_text = cwrap_test_read_file(errpath, NULL);
	cwrap_pcap_free(run->cap);
	run->cap = cwrap_pcap_read(run->path);
}

void pt_capture_more(struct pt_run *run, const char *mtu, void (*fn)(void *),
		     void *arg)
{
	char errpath[4096];
	int cmd[2], done[2], i = run->nsteps;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/stderr", run->dir);
	assert_true(i < PT_MAX_STEPS);
	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int j;

		for (j = 0; j < i; j++) {
			close(run->cmd[j]);
			close(run->done[j]);
		}
		close(cmd[1]);
		close(done[0]);
		setenv("SOCKET_WRAPPER_PCAP_FILE", run->path, 1);
		if (mtu != NULL) {
			setenv("SOCKET_WRAPPER_MTU", mtu, 1);
		} else {
			unsetenv("SOCKET_WRAPPER_MTU");
		}
		step_loop(errpath, cmd[0], done[1]);
	}
	close(cmd[0]);
	close(done[1]);
	run->cmd[i] = cmd[1];
	run->done[i] = done[0];
	run->pids[i] = pid;
	run->nsteps++;
	run_step(run, i, fn, arg);
}

void pt_capture_in(struct pt_run *run, int step, void (*fn)(void *), void *arg)
{
	run_step(run, step, fn, arg);
}

void pt_capture(struct pt_run *run, const char *mtu, void (*fn)(void *),
		void *arg)
{
	memset(run, 0, sizeof(*run));
	run->dir = cwrap_test_mkdtemp("pcap");
	run->path = cwrap_test_path(run->dir, "cap.pcap");
	pt_capture_more(run, mtu, fn, arg);
}

void pt_run_free(struct pt_run *run)
{
	int i, status;

	for (i = 0; i < run->nsteps; i++) {
		close(run->cmd[i]);
		close(run->done[i]);
		if (run->pids[i] > 0) {
			assert_int_equal(waitpid(run->pids[i], &status, 0),
					 run->pids[i]);
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
	}
	cwrap_pcap_free(run->cap);
	cwrap_test_rmtree(run->dir);
	free(run->dir);
	free(run->path);
	free(run->stderr_text);
	memset(run, 0, sizeof(*run));
}

void pt_assert_ip(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		  const struct pt_ep *dst, uint8_t proto)
{
	size_t alen = src->family == 6 ? 16 : 4;

	assert_int_equal(k->family, src->family);
	assert_int_equal(k->caplen, k->len);
	assert_int_equal(k->ip_len, k->caplen);
	assert_memory_equal(k->src, src->addr, alen);
	assert_memory_equal(k->dst, dst->addr, alen);
	assert_int_equal(k->ttl, 64);
	assert_int_equal(k->proto, proto);
	assert_true(k->ip_csum_ok);
	assert_true(k->l4_csum_ok);
	if (k->family == 4) {
		assert_int_equal(k->data[0], 0x45);
		assert_int_equal(k->data[1], 0);
		assert_int_equal(k->ip_frag, 0x4000);
	} else {
		/* version 6, traffic class 0, flow label 0 */
		assert_int_equal(k->data[0], 0x60);
		assert_int_equal(k->data[1], 0);
		assert_int_equal(k->data[2], 0);
		assert_int_equal(k->data[3], 0);
	}
}

void pt_assert_tcp(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		   const struct pt_ep *dst, uint8_t flags, uint32_t seq,
		   uint32_t ack, const void *payload, size_t len)
{
	size_t iphl = src->family == 6 ? 40 : 20;

	pt_assert_ip(k, src, dst, 6);
	assert_int_equal(k->caplen, iphl + 20 + len);
	assert_int_equal(k->sport, src->port);
	assert_int_equal(k->dport, dst->port);
	assert_int_equal(k->tcp_flags, flags);
	assert_int_equal(k->seq, seq);
	assert_int_equal(k->ack, (flags & 0x10) ? ack : 0);
	assert_int_equal(k->tcp_hdr_len, 20);
	assert_int_equal(k->window, 65535);
	/* urgent pointer */
	assert_int_equal(k->data[iphl + 18], 0);
	assert_int_equal(k->data[iphl + 19], 0);
	assert_int_equal(k->payload_len, len);
	if (len > 0) {
		assert_memory_equal(k->payload, payload, len);
	}
}

void pt_assert_udp(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		   const struct pt_ep *dst, const void *payload, size_t len)
{
	size_t iphl = src->family == 6 ? 40 : 20;

	pt_assert_ip(k, src, dst, 17);
	assert_int_equal(k->caplen, iphl + 8 + len);
	assert_int_equal(k->sport, src->port);
	assert_int_equal(k->dport, dst->port);
	assert_int_equal(k->udp_len, 8 + len);
	assert_int_equal(k->payload_len, len);
	if (len > 0) {
		assert_memory_equal(k->payload, payload, len);
	}
}

void pt_print_packets(const struct cwrap_pcap *cap)
{
	const struct cwrap_pcap_pkt *k = cap->pkts;

	for (size_t i = 0; i < cap->n; i++) {
		print_message("packet %zu: %u -> %u flags 0x%02x, %zu bytes\n",
			      i + 1, k[i].sport, k[i].dport, k[i].tcp_flags,
			      k[i].payload_len);
	}
}

void pt_assert_dead_bye(const struct cwrap_pcap_pkt *k, const struct pt_ep *s,
			const struct pt_ep *c)
{
	pt_assert_tcp(&k[3], s, c, 0x10 | 0x08, k[1].seq + 1, k[0].seq + 1,
		      "bye\n", 4);
	pt_assert_tcp(&k[4], s, c, 0x01 | 0x10, k[1].seq + 5, k[0].seq + 1,
		      NULL, 0);
	pt_assert_tcp(&k[5], c, s, 0x10, k[0].seq + 1, k[1].seq + 6, NULL, 0);
}

struct cwrap_pcap_pkt *pt_capture_shown(struct pt_run *run, void (*fn)(void *))
{
	pt_capture(run, NULL, fn, NULL);
	assert_non_null(run->cap);
	pt_print_packets(run->cap);
	return run->cap->pkts;
}
