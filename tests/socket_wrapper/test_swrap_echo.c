/*
 * The echo server fixture (on privileged port 7 of 127.0.0.10 and
 * fd00::5357:5f0a, TCP and UDP) driven through every data call, with the
 * names each side sees. The client runs on interface 20.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <fcntl.h>

#include "swrap_test.h"

static char *dir;
static pid_t servers[4];

static const char *v4 = "127.0.0.10";
static const char *v6 = "fd00::5357:5f0a";

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("20");
	servers[0] = swrap_test_server("tcp", v4, 7);
	servers[1] = swrap_test_server("udp", v4, 7);
	servers[2] = swrap_test_server("tcp", v6, 7);
	servers[3] = swrap_test_server("udp", v6, 7);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++) {
		swrap_test_stop(servers[i]);
	}
	swrap_test_teardown(dir);
	return 0;
}

static void check_names(int fd, const char *server, bool is_v6)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[64], want[64];
	unsigned port;

	assert_int_equal(getpeername(fd, (struct sockaddr *)&ss, &len), 0);
	snprintf(want, sizeof(want), is_v6 ? "[%s]:7" : "%s:7", server);
	assert_string_equal(swrap_test_ntop(&ss, buf), want);
	assert_int_equal(len, is_v6 ? sizeof(struct sockaddr_in6)
				    : sizeof(struct sockaddr_in));

	len = sizeof(ss);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	if (is_v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof(buf));
		assert_string_equal(buf, "fd00::5357:5f14");
		port = ntohs(s6->sin6_port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, buf, sizeof(buf));
		assert_string_equal(buf, "127.0.0.20");
		port = ntohs(s4->sin_port);
	}
	assert_in_range(port, 10000, 60000);
}

static void exchange_all_calls(int fd, bool tcp)
{
	char buf[64];
	struct iovec iov[2];
	struct msghdr msg;
	struct sockaddr_storage from;
	socklen_t flen;

	/* write / read */
	assert_int_equal(write(fd, "hello", 5), 5);
	memset(buf, 0, sizeof(buf));
	swrap_test_read_all(fd, buf, 5);
	assert_string_equal(buf, "hello");

	/* send / recv */
	assert_int_equal(send(fd, "abc", 3, 0), 3);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(recv(fd, buf, 3, MSG_WAITALL), 3);
	assert_string_equal(buf, "abc");

	/* sendto without address / recvfrom */
	assert_int_equal(sendto(fd, "xyz", 3, 0, NULL, 0), 3);
	memset(buf, 0, sizeof(buf));
	flen = sizeof(from);
	assert_int_equal(
	    recvfrom(fd, buf, 3, MSG_WAITALL, (struct sockaddr *)&from, &flen),
	    3);
	assert_string_equal(buf, "xyz");
	if (tcp) {
		assert_int_equal(flen, 0);
	} else {
		assert_true(flen > 0);
	}

	/* writev / readv */
	iov[0].iov_base = (char *)"12";
	iov[0].iov_len = 2;
	iov[1].iov_base = (char *)"345";
	iov[1].iov_len = 3;
	assert_int_equal(writev(fd, iov, 2), 5);
	memset(buf, 0, sizeof(buf));
	iov[0].iov_base = buf;
	iov[0].iov_len = tcp ? 2 : 2;
	iov[1].iov_base = buf + 2;
	iov[1].iov_len = 3;
	if (tcp) {
		swrap_test_read_all(fd, buf, 5);
	} else {
		assert_int_equal(readv(fd, iov, 2), 5);
	}
	assert_string_equal(buf, "12345");

	/* sendmsg / recvmsg */
	memset(&msg, 0, sizeof(msg));
	iov[0].iov_base = (char *)"msg!";
	iov[0].iov_len = 4;
	msg.msg_iov = iov;
	msg.msg_iovlen = 1;
	assert_int_equal(sendmsg(fd, &msg, 0), 4);
	memset(buf, 0, sizeof(buf));
	memset(&msg, 0, sizeof(msg));
	iov[0].iov_base = buf;
	iov[0].iov_len = 4;
	msg.msg_iov = iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &from;
	msg.msg_namelen = sizeof(from);
	assert_int_equal(recvmsg(fd, &msg, MSG_WAITALL), 4);
	assert_string_equal(buf, "msg!");
	if (tcp) {
		assert_int_equal(msg.msg_namelen, 0);
	}
}

static void tcp_calls(const char *server, bool is_v6)
{
	int fd = swrap_test_connect(SOCK_STREAM, server, 7);

	check_names(fd, server, is_v6);
	exchange_all_calls(fd, true);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	{
		char c;

		assert_int_equal(read(fd, &c, 1), 0);
	}
	assert_int_equal(close(fd), 0);
}

static void test_tcp_v4(void **state)
{
	(void)state;
	tcp_calls(v4, false);
}

static void test_tcp_v6(void **state)
{
	(void)state;
	tcp_calls(v6, true);
}

static void udp_calls(const char *server, bool is_v6)
{
	struct sockaddr_storage to, from;
	socklen_t tlen = swrap_test_sa(server, 7, &to), flen;
	char buf[64], a[64], b[64];
	struct iovec iov;
	struct msghdr msg;
	int fd = socket(to.ss_family, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	/* unconnected: sendto / recvfrom, sendmsg / recvmsg with names */
	assert_int_equal(sendto(fd, "ping", 4, 0, (struct sockaddr *)&to, tlen),
			 4);
	flen = sizeof(from);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(
	    recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen),
	    4);
	assert_string_equal(buf, "ping");
	assert_int_equal(flen, tlen);
	assert_string_equal(swrap_test_ntop(&from, a), swrap_test_ntop(&to, b));

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = (char *)"pong";
	iov.iov_len = 4;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &to;
	msg.msg_namelen = tlen;
	assert_int_equal(sendmsg(fd, &msg, 0), 4);
	memset(&msg, 0, sizeof(msg));
	memset(buf, 0, sizeof(buf));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &from;
	msg.msg_namelen = sizeof(from);
	assert_int_equal(recvmsg(fd, &msg, 0), 4);
	assert_string_equal(buf, "pong");
	assert_string_equal(swrap_test_ntop(&from, a), swrap_test_ntop(&to, b));

	/* connected */
	assert_int_equal(connect(fd, (struct sockaddr *)&to, tlen), 0);
	check_names(fd, server, is_v6);
	exchange_all_calls(fd, false);
	assert_int_equal(close(fd), 0);
}

static void test_udp_v4(void **state)
{
	(void)state;
	udp_calls(v4, false);
}

static void test_udp_v6(void **state)
{
	(void)state;
	udp_calls(v6, true);
}

struct sink {
	int fd;
	size_t n;
	size_t got;
};

static void *drain(void *p)
{
	struct sink *s = p;
	char *buf = malloc(65536);

	while (s->got < s->n) {
		ssize_t r = read(s->fd, buf, 65536);

		if (r <= 0) {
			break;
		}
		s->got += (size_t)r;
	}
	free(buf);
	return NULL;
}

/* A large write goes to the kernel whole: no MTU-sized short writes. */
static void test_tcp_large_write_whole(void **state)
{
	const size_t n = 4u << 20;
	char *buf = malloc(n);
	struct sink s = {.n = n};
	pthread_t t;

	(void)state;
	memset(buf, 'x', n);
	s.fd = swrap_test_connect(SOCK_STREAM, v4, 7);
	assert_int_equal(pthread_create(&t, NULL, drain, &s), 0);
	assert_int_equal(write(s.fd, buf, n), (ssize_t)n);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(s.got, n);
	close(s.fd);
	free(buf);
}

/* Descriptors that are not emulated sockets behave as without wrapper. */
static void test_files_and_pipes_untouched(void **state)
{
	char *path = cwrap_test_path(dir, "file");
	char buf[16] = {0};
	int p[2], fd;

	(void)state;
	cwrap_test_write_file(path, "content");
	fd = open(path, 0);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "content");
	assert_int_equal(close(fd), 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "pipe", 4), 4);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(read(p[0], buf, sizeof(buf)), 4);
	assert_string_equal(buf, "pipe");
	close(p[0]);
	close(p[1]);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_v4),
	    cmocka_unit_test(test_tcp_v6),
	    cmocka_unit_test(test_udp_v4),
	    cmocka_unit_test(test_udp_v6),
	    cmocka_unit_test(test_tcp_large_write_whole),
	    cmocka_unit_test(test_files_and_pipes_untouched),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
