/*
 * Capture writer, one process: the file header, TCP (handshake, data, MTU
 * segments, window ACKs, FIN, RST) and UDP over IPv4 and IPv6, ICMP and
 * ICMPv6 port unreachable, checksums, bad variables, and a program that
 * closes the capture's descriptor. Each scenario runs in a child with
 * SOCKET_WRAPPER_PCAP_FILE set; the capture is read back with libpcap and
 * every header field and payload byte is checked.
 */
#include "pcap_test_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <unistd.h>

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10

static int g_family;

/* ---- file header ---------------------------------------------------- */

static void just_enable(void *arg)
{
	(void)arg;
	if (!swrap_pcap_enabled()) {
		_exit(3);
	}
}

static void test_file_header(void **state)
{
	static const uint8_t want[24] = {
	    0xd4, 0xc3, 0xb2, 0xa1, /* magic 0xA1B2C3D4, little-endian */
	    2,	  0,	4,    0,    /* version 2.4 */
	    0,	  0,	0,    0,    /* thiszone */
	    0,	  0,	0,    0,    /* sigfigs */
	    0,	  0,	4,    0,    /* snaplen 262144 */
	    101,  0,	0,    0,    /* LINKTYPE_RAW */
	};
	struct pt_run run;
	size_t len;
	char *data;

	(void)state;
	pt_capture(&run, NULL, just_enable, NULL);
	data = cwrap_test_read_file(run.path, &len);
	assert_non_null(data);
	assert_int_equal(len, 24);
	assert_memory_equal(data, want, 24);
	free(data);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->major, 2);
	assert_int_equal(run.cap->minor, 4);
	assert_int_equal(run.cap->linktype, DLT_RAW);
	assert_int_equal(run.cap->n, 0);

	/* A second process appends: still one header. */
	pt_capture_more(&run, NULL, just_enable, NULL);
	data = cwrap_test_read_file(run.path, &len);
	assert_int_equal(len, 24);
	free(data);
	pt_run_free(&run);
}

/* ---- TCP ------------------------------------------------------------ */

static void tcp_conversation(void *arg)
{
	struct pt_ep c = pt_ep(g_family, 100, 40000);
	struct pt_ep s = pt_ep(g_family, 10, 7);

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, "Hello!\n", 7);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &c, &s, "echo: Hello!\n", 13);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void check_tcp_conversation(int family)
{
	struct pt_ep c = pt_ep(family, 100, 40000);
	struct pt_ep s = pt_ep(family, 10, 7);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	uint32_t ic, is;
	size_t i;

	g_family = family;
	pt_capture(&run, NULL, tcp_conversation, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 7);
	k = run.cap->pkts;
	ic = k[0].seq;
	is = k[1].seq;
	pt_assert_tcp(&k[0], &c, &s, F_SYN, ic, 0, NULL, 0);
	pt_assert_tcp(&k[1], &s, &c, F_SYN | F_ACK, is, ic + 1, NULL, 0);
	pt_assert_tcp(&k[2], &c, &s, F_ACK, ic + 1, is + 1, NULL, 0);
	pt_assert_tcp(&k[3], &c, &s, F_PSH | F_ACK, ic + 1, is + 1, "Hello!\n",
		      7);
	pt_assert_tcp(&k[4], &s, &c, F_PSH | F_ACK, is + 1, ic + 8,
		      "echo: Hello!\n", 13);
	pt_assert_tcp(&k[5], &c, &s, F_FIN | F_ACK, ic + 8, is + 14, NULL, 0);
	pt_assert_tcp(&k[6], &s, &c, F_ACK, is + 14, ic + 9, NULL, 0);
	for (i = 1; i < run.cap->n; i++) {
		/* in time order */
		assert_true((uint64_t)k[i].ts_sec * 1000000 + k[i].ts_usec >=
			    (uint64_t)k[i - 1].ts_sec * 1000000 +
				k[i - 1].ts_usec);
	}
	if (family == 4) {
		/* one IPv4 id per packet */
		for (i = 1; i < run.cap->n; i++) {
			assert_int_equal((uint16_t)(k[i - 1].ip_id + 1),
					 k[i].ip_id);
		}
	}
	pt_run_free(&run);
}

static void test_tcp_ipv4(void **state)
{
	(void)state;
	check_tcp_conversation(4);
}

static void test_tcp_ipv6(void **state)
{
	(void)state;
	check_tcp_conversation(6);
}

/* A transfer larger than the MTU, given in three iovecs. */
#define BIG 5000
static uint8_t g_big[BIG];

static void tcp_big(void *arg)
{
	struct pt_ep c = pt_ep(g_family, 100, 40001);
	struct pt_ep s = pt_ep(g_family, 10, 80);
	struct iovec iov[3] = {
	    {g_big, 1}, {g_big + 1, 2999}, {g_big + 3000, BIG - 3000}};

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	swrap_pcap_event(SWRAP_PCAP_SEND, SOCK_STREAM,
			 (const struct sockaddr *)&c.ss, c.len,
			 (const struct sockaddr *)&s.ss, s.len, iov, 3, BIG);
}

static void check_big(int family, const char *mtu, size_t seg)
{
	struct pt_ep c = pt_ep(family, 100, 40001);
	struct pt_ep s = pt_ep(family, 10, 80);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	size_t off, i, nseg = (BIG + seg - 1) / seg;
	uint32_t ic, is;

	for (i = 0; i < BIG; i++) {
		g_big[i] = (uint8_t)(i * 7 + i / 256);
	}
	g_family = family;
	pt_capture(&run, mtu, tcp_big, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3 + nseg);
	k = run.cap->pkts;
	ic = k[0].seq;
	is = k[1].seq;
	for (i = 0, off = 0; i < nseg; i++) {
		size_t n = BIG - off < seg ? BIG - off : seg;

		pt_assert_tcp(&k[3 + i], &c, &s,
			      F_ACK | (i == nseg - 1 ? F_PSH : 0),
			      ic + 1 + (uint32_t)off, is + 1, g_big + off, n);
		off += n;
	}
	assert_int_equal(off, BIG);
	pt_run_free(&run);
}

static void test_tcp_mtu_split(void **state)
{
	(void)state;
	check_big(4, NULL, 1500);
	check_big(6, NULL, 1500);
	check_big(4, "512", 512);
	check_big(6, "4096", 4096);
}

/* A bad SOCKET_WRAPPER_MTU: the default, and one line naming it. (The
 * writer reads its variables through the socket core's configuration,
 * which names a bad one once: test_pcap_nc_demo.sh.) */
static void test_bad_mtu(void **state)
{
	struct pt_run run;

	(void)state;
	for (int i = 0; i < BIG; i++) {
		g_big[i] = (uint8_t)i;
	}
	g_family = 4;
	pt_capture(&run, "100", tcp_big, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3 + 4); /* 1500 x 3 + 500 */
	assert_int_equal(run.cap->pkts[3].payload_len, 1500);
	assert_non_null(strstr(run.stderr_text, "SOCKET_WRAPPER_MTU='100'"));
	assert_non_null(strchr(run.stderr_text, '\n'));
	assert_null(strchr(strchr(run.stderr_text, '\n') + 1, '\n'));
	pt_run_free(&run);
}

/* 200 KiB one way: the receiver's ACKs keep the data in the window, and
 * the stream reassembles to the bytes sent. */
#define HUGE_LEN (200 * 1024)

static void tcp_huge(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 40002);
	struct pt_ep s = pt_ep(4, 10, 80);
	uint8_t *buf = arg;

	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, buf, HUGE_LEN);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void test_tcp_window(void **state)
{
	struct pt_ep c = pt_ep(4, 100, 40002);
	struct pt_ep s = pt_ep(4, 10, 80);
	uint8_t *buf = malloc(HUGE_LEN), *got = calloc(1, HUGE_LEN);
	struct pt_run run;
	uint32_t ic, is, acked;
	size_t i, off = 0, acks = 0;

	(void)state;
	for (i = 0; i < HUGE_LEN; i++) {
		buf[i] = (uint8_t)(i ^ (i >> 8));
	}
	pt_capture(&run, NULL, tcp_huge, buf);
	assert_non_null(run.cap);
	ic = run.cap->pkts[0].seq;
	is = run.cap->pkts[1].seq;
	acked = ic + 1;
	for (i = 3; i < run.cap->n - 2; i++) {
		struct cwrap_pcap_pkt *k = &run.cap->pkts[i];

		if (k->sport == 80) {
			pt_assert_tcp(k, &s, &c, F_ACK, is + 1,
				      ic + 1 + (uint32_t)off, NULL, 0);
			acked = k->ack;
			acks++;
			continue;
		}
		assert_int_equal(k->seq, ic + 1 + (uint32_t)off);
		assert_true(off + k->payload_len <= HUGE_LEN);
		/* never more than a window in flight */
		assert_true(k->seq + k->payload_len - acked <= 65535);
		pt_assert_tcp(k, &c, &s, k->tcp_flags, k->seq, is + 1,
			      buf + off, k->payload_len);
		memcpy(got + off, k->payload, k->payload_len);
		off += k->payload_len;
	}
	assert_int_equal(off, HUGE_LEN);
	assert_memory_equal(got, buf, HUGE_LEN);
	assert_true(acks >= HUGE_LEN / 65535);
	pt_assert_tcp(&run.cap->pkts[run.cap->n - 2], &c, &s, F_FIN | F_ACK,
		      ic + 1 + HUGE_LEN, is + 1, NULL, 0);
	pt_assert_tcp(&run.cap->pkts[run.cap->n - 1], &s, &c, F_ACK, is + 1,
		      ic + 2 + HUGE_LEN, NULL, 0);
	pt_run_free(&run);
	free(buf);
	free(got);
}

/* Refused, reset, and the close of each end. */
static void tcp_rst(void *arg)
{
	struct pt_ep c = pt_ep(g_family, 100, 40003);
	struct pt_ep s = pt_ep(g_family, 10, 9);
	struct pt_ep c2 = pt_ep(g_family, 100, 40004);

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT_REFUSED, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c2, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c2, &s, "abc", 3);
	pt_event(SWRAP_PCAP_RESET, SOCK_STREAM, &c2, &s, NULL, 0);
	/* after a reset, closing records nothing more */
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c2, &s, NULL, 0);
	pt_event(SWRAP_PCAP_RESET, SOCK_STREAM, &s, &c2, NULL, 0);
}

static void check_rst(int family)
{
	struct pt_ep c = pt_ep(family, 100, 40003);
	struct pt_ep s = pt_ep(family, 10, 9);
	struct pt_ep c2 = pt_ep(family, 100, 40004);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	uint32_t ic, is;

	g_family = family;
	pt_capture(&run, NULL, tcp_rst, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 2 + 3 + 1 + 1);
	k = run.cap->pkts;
	pt_assert_tcp(&k[0], &c, &s, F_SYN, k[0].seq, 0, NULL, 0);
	pt_assert_tcp(&k[1], &s, &c, F_RST | F_ACK, 0, k[0].seq + 1, NULL, 0);
	ic = k[2].seq;
	is = k[3].seq;
	pt_assert_tcp(&k[2], &c2, &s, F_SYN, ic, 0, NULL, 0);
	pt_assert_tcp(&k[5], &c2, &s, F_PSH | F_ACK, ic + 1, is + 1, "abc", 3);
	pt_assert_tcp(&k[6], &s, &c2, F_RST | F_ACK, is + 1, ic + 4, NULL, 0);
	pt_run_free(&run);
}

static void test_tcp_rst(void **state)
{
	(void)state;
	check_rst(4);
	check_rst(6);
}

/* Both ends close: FIN and ACK each way, in order of the closes. */
static void tcp_both_close(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 40005);
	struct pt_ep s = pt_ep(4, 10, 21);

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &c, &s, "220 hi\r\n", 8);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void test_tcp_fin_both(void **state)
{
	struct pt_ep c = pt_ep(4, 100, 40005);
	struct pt_ep s = pt_ep(4, 10, 21);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	uint32_t ic, is;

	(void)state;
	pt_capture(&run, NULL, tcp_both_close, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 3 + 1 + 2 + 2);
	k = run.cap->pkts;
	ic = k[0].seq;
	is = k[1].seq;
	pt_assert_tcp(&k[3], &s, &c, F_PSH | F_ACK, is + 1, ic + 1,
		      "220 hi\r\n", 8);
	pt_assert_tcp(&k[4], &s, &c, F_FIN | F_ACK, is + 9, ic + 1, NULL, 0);
	pt_assert_tcp(&k[5], &c, &s, F_ACK, ic + 1, is + 10, NULL, 0);
	pt_assert_tcp(&k[6], &c, &s, F_FIN | F_ACK, ic + 1, is + 10, NULL, 0);
	pt_assert_tcp(&k[7], &s, &c, F_ACK, is + 10, ic + 2, NULL, 0);
	pt_run_free(&run);
}

/* ---- UDP and ICMP --------------------------------------------------- */

static void udp_exchange(void *arg)
{
	struct pt_ep c = pt_ep(g_family, 100, 50000);
	struct pt_ep s = pt_ep(g_family, 10, 53);
	struct pt_ep nobody = pt_ep(g_family, 11, 999);
	static uint8_t big[2000];

	(void)arg;
	memset(big, 'x', sizeof(big));
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "ping", 4);
	pt_event(SWRAP_PCAP_RECV, SOCK_DGRAM, &c, &s, "pong!", 5);
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "", 0);
	pt_event(SWRAP_PCAP_SEND_UNREACH, SOCK_DGRAM, &c, &nobody, "hey?", 4);
	/* a datagram above the MTU is not cut: UDP is not segmented */
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, big, sizeof(big));
	pt_event(SWRAP_PCAP_SEND_UNREACH, SOCK_DGRAM, &c, &nobody, big,
		 sizeof(big));
}

static void check_udp(int family)
{
	struct pt_ep c = pt_ep(family, 100, 50000);
	struct pt_ep s = pt_ep(family, 10, 53);
	struct pt_ep nobody = pt_ep(family, 11, 999);
	struct cwrap_pcap_pkt *k;
	struct pt_run run;
	uint8_t big[2000];
	size_t qmax;

	memset(big, 'x', sizeof(big));
	g_family = family;
	pt_capture(&run, NULL, udp_exchange, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 8);
	k = run.cap->pkts;
	pt_assert_udp(&k[0], &c, &s, "ping", 4);
	pt_assert_udp(&k[1], &s, &c, "pong!", 5);
	pt_assert_udp(&k[2], &c, &s, NULL, 0);
	pt_assert_udp(&k[3], &c, &nobody, "hey?", 4);
	/* port unreachable from the address nobody listens on, quoting
	 * the whole offending packet */
	pt_assert_ip(&k[4], &nobody, &c, family == 6 ? 58 : 1);
	assert_int_equal(k[4].icmp_type, family == 6 ? 1 : 3);
	assert_int_equal(k[4].icmp_code, family == 6 ? 4 : 3);
	assert_int_equal(k[4].payload_len, k[3].caplen);
	assert_memory_equal(k[4].payload, k[3].data, k[3].caplen);
	assert_int_equal(k[4].payload[-4] | k[4].payload[-3] |
			     k[4].payload[-2] | k[4].payload[-1],
			 0);
	pt_assert_udp(&k[5], &c, &s, big, sizeof(big));
	/* a long datagram is quoted up to 576 (IPv4) / 1280 (IPv6) bytes */
	qmax = family == 6 ? 1280 - 48 : 576 - 28;
	pt_assert_udp(&k[6], &c, &nobody, big, sizeof(big));
	pt_assert_ip(&k[7], &nobody, &c, family == 6 ? 58 : 1);
	assert_int_equal(k[7].caplen, family == 6 ? 1280 : 576);
	assert_int_equal(k[7].payload_len, qmax);
	assert_memory_equal(k[7].payload, k[6].data, qmax);
	pt_run_free(&run);
}

static void test_udp_ipv4(void **state)
{
	(void)state;
	check_udp(4);
}

static void test_udp_ipv6(void **state)
{
	(void)state;
	check_udp(6);
}

/* ---- odd inputs ----------------------------------------------------- */

static void odd_inputs(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 50001);
	struct pt_ep s = pt_ep(4, 10, 53);
	struct pt_ep s6 = pt_ep(6, 10, 53);
	struct sockaddr_in6 mapped;
	struct sockaddr_un {
		sa_family_t f;
		char p[20];
	} un = {AF_UNIX, "x"};

	(void)arg;
	/* not IP, mixed families, NULL, bad socket type: ignored */
	swrap_pcap_event(SWRAP_PCAP_SEND, SOCK_DGRAM,
			 (const struct sockaddr *)&un, sizeof(un),
			 (const struct sockaddr *)&s.ss, s.len, NULL, 0, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s6, "x", 1);
	swrap_pcap_event(SWRAP_PCAP_SEND, SOCK_DGRAM, NULL, 0,
			 (const struct sockaddr *)&s.ss, s.len, NULL, 0, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_RAW, &c, &s, "x", 1);
	/* a v4-mapped IPv6 address is the IPv4 address */
	memset(&mapped, 0, sizeof(mapped));
	mapped.sin6_family = AF_INET6;
	mapped.sin6_port = htons(50001);
	mapped.sin6_addr.s6_addr[10] = 0xff;
	mapped.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&mapped.sin6_addr.s6_addr[12], c.addr, 4);
	{
		struct iovec iov = {(void *)"m", 1};

		swrap_pcap_event(SWRAP_PCAP_SEND, SOCK_DGRAM | SOCK_NONBLOCK,
				 (const struct sockaddr *)&mapped,
				 sizeof(mapped), (const struct sockaddr *)&s.ss,
				 s.len, &iov, 1, 1);
	}
	/* errno is left alone */
	errno = 1234;
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "e", 1);
	if (errno != 1234) {
		_exit(4);
	}
	/* the program puts something else on the capture's descriptor:
	 * within a second the writer notices and reopens the file */
	{
		int null = open("/dev/null", O_WRONLY), fd, found = -1;
		char link[64], target[4096];
		ssize_t n;

		for (fd = 3; fd < 1024 && found < 0; fd++) {
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 9 &&
			    memcmp(target + n - 9, "/cap.pcap", 9) == 0) {
				found = fd;
			}
		}
		if (null < 0 || found < 0 || dup2(null, found) != found) {
			_exit(5);
		}
		sleep(1);
		pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "moved", 5);
	}
	/* the program closes every descriptor: the writer's next write
	 * fails with EBADF, and it reopens the file */
	for (int fd = 3; fd < 1024; fd++) {
		close(fd);
	}
	if (open("/dev/null", O_WRONLY) < 0) {
		_exit(5);
	}
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "after", 5);
}

static void test_odd_inputs(void **state)
{
	struct pt_ep c = pt_ep(4, 100, 50001);
	struct pt_ep s = pt_ep(4, 10, 53);
	struct pt_run run;

	(void)state;
	pt_capture(&run, NULL, odd_inputs, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 4);
	pt_assert_udp(&run.cap->pkts[0], &c, &s, "m", 1);
	pt_assert_udp(&run.cap->pkts[1], &c, &s, "e", 1);
	pt_assert_udp(&run.cap->pkts[2], &c, &s, "moved", 5);
	pt_assert_udp(&run.cap->pkts[3], &c, &s, "after", 5);
	pt_run_free(&run);
}

/* An unusable capture file: one line naming the variable, capture off. */
static void bad_file(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 50001);
	struct pt_ep s = pt_ep(4, 10, 53);

	(void)arg;
	setenv("SOCKET_WRAPPER_PCAP_FILE", "/nonexistent/dir/x.pcap", 1);
	if (swrap_pcap_enabled()) {
		_exit(3);
	}
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "x", 1);
}

static void not_pcap(void *arg)
{
	(void)arg;
	if (swrap_pcap_enabled()) {
		_exit(3);
	}
}

static void test_bad_file(void **state)
{
	struct pt_run run;
	const char *nl;

	(void)state;
	pt_capture(&run, NULL, bad_file, NULL);
	assert_null(run.cap);
	assert_non_null(
	    strstr(run.stderr_text,
		   "SOCKET_WRAPPER_PCAP_FILE=/nonexistent/dir/x.pcap"));
	nl = strchr(run.stderr_text, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
	pt_run_free(&run);

	/* a file that is something else is left alone */
	memset(&run, 0, sizeof(run));
	run.dir = cwrap_test_mkdtemp("pcap");
	run.path = cwrap_test_path(run.dir, "cap.pcap");
	cwrap_test_write_file(run.path, "not a capture\n");
	pt_capture_more(&run, NULL, not_pcap, NULL);
	assert_non_null(strstr(run.stderr_text, "not a little-endian"));
	{
		char *data = cwrap_test_read_file(run.path, NULL);

		assert_string_equal(data, "not a capture\n");
		free(data);
	}
	pt_run_free(&run);
}

/* The state file cannot be used (a directory sits in its place): the
 * capture still works, with state private to the process. */
static void test_private_state(void **state)
{
	struct pt_ep c = pt_ep(4, 100, 40000), s = pt_ep(4, 10, 7);
	struct pt_run run;
	char *st;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.dir = cwrap_test_mkdtemp("pcap");
	run.path = cwrap_test_path(run.dir, "cap.pcap");
	st = cwrap_test_path(run.dir, "cap.pcap.swrap-state");
	assert_int_equal(mkdir(st, 0700), 0);
	free(st);
	g_family = 4;
	pt_capture_more(&run, NULL, tcp_conversation, NULL);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 7);
	pt_assert_tcp(&run.cap->pkts[3], &c, &s, F_PSH | F_ACK,
		      run.cap->pkts[0].seq + 1, run.cap->pkts[1].seq + 1,
		      "Hello!\n", 7);
	pt_run_free(&run);
}

/* A relative SOCKET_WRAPPER_PCAP_FILE names a file in the directory the
 * process was in when capture started, even after a chdir(). */
static void relative_path(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 50002), s = pt_ep(4, 10, 7);
	const char *dir = arg;

	if (chdir(dir) != 0) {
		_exit(3);
	}
	setenv("SOCKET_WRAPPER_PCAP_FILE", "cap.pcap", 1);
	if (!swrap_pcap_enabled() || chdir("/") != 0) {
		_exit(4);
	}
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "rel", 3);
	/* the program closes the descriptor: reopened by absolute path */
	for (int fd = 3; fd < 1024; fd++) {
		close(fd);
	}
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "abs", 3);
}

static void test_relative_path(void **state)
{
	struct pt_ep c = pt_ep(4, 100, 50002), s = pt_ep(4, 10, 7);
	struct pt_run run;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.dir = cwrap_test_mkdtemp("pcap");
	run.path = cwrap_test_path(run.dir, "cap.pcap");
	pt_capture_more(&run, NULL, relative_path, run.dir);
	assert_non_null(run.cap);
	assert_int_equal(run.cap->n, 2);
	pt_assert_udp(&run.cap->pkts[0], &c, &s, "rel", 3);
	pt_assert_udp(&run.cap->pkts[1], &c, &s, "abs", 3);
	pt_run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_header),
	    cmocka_unit_test(test_tcp_ipv4),
	    cmocka_unit_test(test_tcp_ipv6),
	    cmocka_unit_test(test_tcp_mtu_split),
	    cmocka_unit_test(test_bad_mtu),
	    cmocka_unit_test(test_tcp_window),
	    cmocka_unit_test(test_tcp_rst),
	    cmocka_unit_test(test_tcp_fin_both),
	    cmocka_unit_test(test_udp_ipv4),
	    cmocka_unit_test(test_udp_ipv6),
	    cmocka_unit_test(test_odd_inputs),
	    cmocka_unit_test(test_bad_file),
	    cmocka_unit_test(test_private_state),
	    cmocka_unit_test(test_relative_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
