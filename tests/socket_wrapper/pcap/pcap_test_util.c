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

#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
    .name = "socket_wrapper",
    .log_prefix = "SWRAP",
    .env_prefix = "SOCKET_WRAPPER",
};

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

	swrap_pcap_event(ev, sotype, (const struct sockaddr *)&local->ss,
			 local->len, (const struct sockaddr *)&peer->ss,
			 peer->len, data != NULL ? &iov : NULL,
			 data != NULL ? 1 : 0, len);
}

void pt_capture_more(struct pt_run *run, const char *mtu, void (*fn)(void *),
		     void *arg)
{
	char errpath[4096];
	int status;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/stderr", run->dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = freopen(errpath, "w", stderr);

		if (f == NULL) {
			_exit(2);
		}
		setenv("SOCKET_WRAPPER_PCAP_FILE", run->path, 1);
		if (mtu != NULL) {
			setenv("SOCKET_WRAPPER_MTU", mtu, 1);
		} else {
			unsetenv("SOCKET_WRAPPER_MTU");
		}
		fn(arg);
		fflush(stderr);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(run->stderr_text);
	run->stderr_text = cwrap_test_read_file(errpath, NULL);
	cwrap_pcap_free(run->cap);
	run->cap = cwrap_pcap_read(run->path);
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
