/*
 * Capture under the preloaded wrapper, one socket used by several
 * processes: the test connects to the echo server (which captures into the
 * same file), talks, lets a forked child talk on the same connection, then
 * passes the socket with SCM_RIGHTS to a process that did not inherit it,
 * which talks too. The capture must hold one handshake, every byte of both
 * directions exactly once with contiguous sequence numbers, and pass
 * tshark. The same for UDP datagrams from two processes.
 */
#include "swrap_test.h"
#include "pcap_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

static const char *parts[] = {"one:", "two:", "three:", "four:"};

static void talk(int fd, const char *msg)
{
	char buf[64];
	size_t n = strlen(msg);

	swrap_test_write_all(fd, msg, n);
	swrap_test_read_all(fd, buf, n);
	assert_memory_equal(buf, msg, n);
}

static void send_fd(int chan, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte = 'f';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;

	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	assert_int_equal(sendmsg(chan, &m, 0), 1);
}

static int recv_fd(int chan)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(chan, &m, 0) != 1) {
		return -1;
	}
	cm = CMSG_FIRSTHDR(&m);
	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS) {
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void wait_ok(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The payload of one direction, checking that the sequence numbers are
 * contiguous; malloc'd, NUL-terminated. */
static char *stream_of(struct cwrap_pcap *cap, uint16_t sport, uint16_t dport,
		       uint32_t isn)
{
	char *s = calloc(1, 4096);
	size_t off = 0, i;

	for (i = 0; i < cap->n; i++) {
		struct cwrap_pcap_pkt *k = &cap->pkts[i];

		if (k->proto != 6 || k->sport != sport || k->dport != dport ||
		    k->payload_len == 0) {
			continue;
		}
		assert_int_equal(k->seq, isn + 1 + (uint32_t)off);
		assert_true(off + k->payload_len < 4096);
		memcpy(s + off, k->payload, k->payload_len);
		off += k->payload_len;
	}
	return s;
}

static void check_tshark(const char *path)
{
	const char *src = getenv("CWRAP_SOURCE_DIR");
	char cmd[8192];

	assert_non_null(src);
	snprintf(
	    cmd, sizeof(cmd),
	    "%s/tests/socket_wrapper/pcap/tshark_check.sh "
	    "%s 'tcp.flags.syn==1' 'tcp.flags.fin==1' > /dev/null",
	    src, path);
	assert_int_equal(cwrap_test_system_unwrapped(cmd), 0);
}

static void test_tcp_shared_socket(void **state)
{
	char *dir = swrap_test_setup("100");
	char *cap_path = cwrap_test_path(dir, "cap.pcap");
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct cwrap_pcap *cap;
	int chan[2], fd, nsyn = 0;
	uint16_t cport;
	uint32_t ic = 0, is = 0;
	pid_t srv, a, b;
	char *up, *down;
	size_t i;

	(void)state;
	assert_int_equal(setenv("SOCKET_WRAPPER_PCAP_FILE", cap_path, 1), 0);
	srv = swrap_test_server("tcp", "127.0.0.10", 7);
	/* B exists before the connection: it gets the socket only by
	 * SCM_RIGHTS. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, chan), 0);
	b = fork();
	assert_true(b >= 0);
	if (b == 0) {
		close(chan[0]);
		fd = recv_fd(chan[1]);
		if (fd < 0) {
			_exit(3);
		}
		talk(fd, parts[2]);
		if (write(chan[1], "d", 1) != 1) {
			_exit(4);
		}
		_exit(0);
	}
	close(chan[1]);

	fd = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 7);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	cport = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	talk(fd, parts[0]);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		talk(fd, parts[1]);
		_exit(0);
	}
	wait_ok(a);
	send_fd(chan[0], fd);
	{
		char d;

		assert_int_equal(read(chan[0], &d, 1), 1);
	}
	wait_ok(b);
	talk(fd, parts[3]);
	close(fd);
	close(chan[0]);
	swrap_test_stop(srv);

	cap = cwrap_pcap_read(cap_path);
	assert_non_null(cap);
	for (i = 0; i < cap->n; i++) {
		struct cwrap_pcap_pkt *k = &cap->pkts[i];

		assert_true(k->ip_csum_ok && k->l4_csum_ok);
		if (k->tcp_flags == 0x02) {
			ic = k->seq;
			nsyn++;
			assert_int_equal(k->sport, cport);
		} else if (k->tcp_flags == 0x12) {
			is = k->seq;
		}
	}
	assert_int_equal(nsyn, 1);
	up = stream_of(cap, cport, 7, ic);
	down = stream_of(cap, 7, cport, is);
	assert_string_equal(up, "one:two:three:four:");
	assert_string_equal(down, "one:two:three:four:");
	free(up);
	free(down);
	cwrap_pcap_free(cap);
	check_tshark(cap_path);
	free(cap_path);
	unsetenv("SOCKET_WRAPPER_PCAP_FILE");
	swrap_test_teardown(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_shared_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
