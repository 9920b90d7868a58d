/*
 * socket_wrapper preloaded with SOCKET_WRAPPER_DIR unset: inert. Every
 * socket is the kernel's (AF_INET in /proc's eyes, not a unix socket),
 * names and errors are the kernel's, a TCP and a UDP exchange over the
 * real 127.0.0.1 work, syscall() and dup2/fcntl on them too, and the
 * enabled() function says so. Compared, where it matters, with a socket
 * made by the raw system call, which no wrapper sees.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "socket_wrapper.h"
#include "swrap_test.h"

static int domain_of(int fd)
{
	int d = -1;
	socklen_t len = sizeof(d);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &len), 0);
	return d;
}

static void test_disabled(void **state)
{
	(void)state;
	assert_null(getenv("SOCKET_WRAPPER_DIR"));
	assert_false(socket_wrapper_enabled());
}

static void test_tcp_on_the_kernel(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int l, c, a, info_len;
	struct tcp_info ti;
	socklen_t tlen = sizeof(ti);
	char buf[8];

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(domain_of(l), AF_INET);
	assert_false(swrap_test_is_unix(l));
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	assert_true(ntohs(sa.sin_port) != 0); /* the kernel's ephemeral port */
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	assert_false(swrap_test_is_unix(a));
	assert_int_equal(write(c, "ping", 4), 4);
	swrap_test_read_all(a, buf, 4);
	assert_memory_equal(buf, "ping", 4);
	assert_int_equal(getsockopt(a, IPPROTO_TCP, TCP_INFO, &ti, &tlen), 0);
	info_len = (int)tlen;
	assert_true(info_len > 100); /* the kernel's whole struct */
	assert_int_equal(ti.tcpi_state, TCP_ESTABLISHED);
	/* a descriptor moved and duplicated stays the kernel's */
	assert_int_equal(dup2(a, 100), 100);
	assert_int_equal(domain_of(100), AF_INET);
	assert_true(fcntl(100, F_DUPFD, 200) >= 200);
	close(100);
	close(a);
	close(c);
	close(l);
}

static void test_udp_and_errors_as_the_kernel(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET}, from;
	socklen_t len = sizeof(sa), flen = sizeof(from);
	int s, raw;
	char buf[8];

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &len), 0);
	assert_int_equal(
	    sendto(s, "u", 1, 0, (struct sockaddr *)&sa, sizeof(sa)), 1);
	assert_int_equal(
	    recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen),
	    1);
	assert_int_equal(from.sin_port, sa.sin_port);
	/* 192.0.2.1 (TEST-NET) is no address of this machine: EADDRNOTAVAIL
	 * from the wrapped call, as from the raw one */
	sa.sin_addr.s_addr = htonl(0xc0000201);
	sa.sin_port = 0;
	raw = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	assert_true(raw >= 0);
	errno = 0;
	assert_int_equal(bind(raw, (struct sockaddr *)&sa, sizeof(sa)), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	close(raw);
	{
		int t = socket(AF_INET, SOCK_DGRAM, 0);

		errno = 0;
		assert_int_equal(bind(t, (struct sockaddr *)&sa, sizeof(sa)),
				 -1);
		assert_int_equal(errno, EADDRNOTAVAIL);
		close(t);
	}
	/* syscall() makes a kernel socket too */
	raw = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	assert_true(raw >= 0);
	assert_false(swrap_test_is_unix(raw));
	close(raw);
	close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disabled),
	    cmocka_unit_test(test_tcp_on_the_kernel),
	    cmocka_unit_test(test_udp_and_errors_as_the_kernel),
	};

	unsetenv("SOCKET_WRAPPER_DIR");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
