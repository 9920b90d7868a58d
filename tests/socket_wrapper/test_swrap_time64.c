/*
 * A program built with 64-bit time_t and off_t (-D_TIME_BITS=64
 * -D_FILE_OFFSET_BITS=64, see CMakeLists.txt). On i386, glibc 2.34+ sends
 * its sendmsg, recvmsg, sendmmsg, recvmmsg, getsockopt, setsockopt and
 * fcntl calls to other names (__recvmsg64, __fcntl_time64, ...), which the
 * wrapper must interpose too, or such a program would see the unix sockets
 * underneath. Elsewhere the names are the usual ones and this test is one
 * more run of the same calls.
 */
#include "swrap_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("31");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

/* On i386 the 64-bit time names must come from the wrapper. */
static void test_names_interposed(void **state)
{
	static const char *const names[] = {
	    "__sendmsg64",    "__recvmsg64",	"__sendmmsg64",
	    "__recvmmsg64",   "__getsockopt64", "__setsockopt64",
	    "__fcntl_time64",
	};

	(void)state;
	assert_true(sizeof(time_t) == 8);
	assert_true(sizeof(off_t) == 8);
	if (sizeof(long) == 8) {
		skip(); /* one name for each call there */
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *fn = dlsym(RTLD_DEFAULT, names[i]);
		Dl_info di;

		assert_non_null(fn);
		assert_true(dladdr(fn, &di) != 0);
		if (strstr(di.dli_fname, "socket_wrapper") == NULL) {
			fail_msg("%s comes from %s", names[i], di.dli_fname);
		}
	}
}

/* Messages: the emulated addresses both ways, PKTINFO included. */
static void test_messages(void **state)
{
	struct sockaddr_storage ss, from;
	socklen_t len = swrap_test_sa("127.0.0.31", 5300, &ss);
	int s = swrap_test_bound(SOCK_DGRAM, "127.0.0.31", 5300),
	    c = socket(AF_INET, SOCK_DGRAM, 0), on = 1;
	char buf[32], name[64];
	union {
		char b[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {(void *)"hello", 5};
	struct msghdr mh = {.msg_name = &ss,
			    .msg_namelen = len,
			    .msg_iov = &iov,
			    .msg_iovlen = 1};
	struct cmsghdr *cm;
	struct mmsghdr mm[2];
	struct iovec iovs[2] = {{(void *)"one", 3}, {(void *)"two", 3}};
	struct timespec ts = {1, 0};

	(void)state;
	assert_int_equal(setsockopt(s, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)),
			 0);
	assert_int_equal(sendmsg(c, &mh, 0), 5);
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.b;
	mh.msg_controllen = sizeof(ctl.b);
	assert_int_equal(recvmsg(s, &mh, 0), 5);
	assert_memory_equal(buf, "hello", 5);
	assert_non_null(strstr(swrap_test_ntop(&from, name), "127.0.0.31:"));
	cm = CMSG_FIRSTHDR(&mh);
	assert_non_null(cm);
	assert_int_equal(cm->cmsg_level, IPPROTO_IP);
	assert_int_equal(cm->cmsg_type, IP_PKTINFO);
	assert_int_equal(
	    ntohl(((struct in_pktinfo *)CMSG_DATA(cm))->ipi_addr.s_addr),
	    0x7f00001f);

	memset(mm, 0, sizeof(mm));
	for (int k = 0; k < 2; k++) {
		mm[k].msg_hdr.msg_name = &ss;
		mm[k].msg_hdr.msg_namelen = len;
		mm[k].msg_hdr.msg_iov = &iovs[k];
		mm[k].msg_hdr.msg_iovlen = 1;
	}
	assert_int_equal(sendmmsg(c, mm, 2, 0), 2);
	memset(mm, 0, sizeof(mm));
	for (int k = 0; k < 2; k++) {
		iovs[k].iov_base = buf + 16 * k;
		iovs[k].iov_len = 16;
		mm[k].msg_hdr.msg_iov = &iovs[k];
		mm[k].msg_hdr.msg_iovlen = 1;
		mm[k].msg_hdr.msg_name = k == 0 ? &from : NULL;
		mm[k].msg_hdr.msg_namelen = k == 0 ? sizeof(from) : 0;
	}
	assert_int_equal(recvmmsg(s, mm, 2, 0, &ts), 2);
	assert_memory_equal(buf, "one", 3);
	assert_memory_equal(buf + 16, "two", 3);
	assert_non_null(strstr(swrap_test_ntop(&from, name), "127.0.0.31:"));
	/* A timeout on an empty socket: returns after it (MSG_WAITFORONE
	 * aside, the wrapper's loop reads the 64-bit timespec). */
	ts.tv_sec = -1;
	assert_int_equal(recvmmsg(s, mm, 1, 0, &ts), -1);
	assert_int_equal(errno, EINVAL);
	close(s);
	close(c);
}

/* Options: the emulated ones answer as an IP socket, the time ones reach
 * the kernel in the program's layout and act there. */
static void test_options(void **state)
{
	int s = swrap_test_bound(SOCK_DGRAM, "127.0.0.31", 5301), v = 0;
	socklen_t vl = sizeof(v);
	struct timeval tv = {0, 150000}, got;
	socklen_t gl = sizeof(got);
	struct timespec t0, t1;
	char b;
	long ms;

	(void)state;
	assert_int_equal(getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &vl), 0);
	assert_int_equal(v, AF_INET);
	assert_int_equal(getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &v, &vl), 0);
	assert_int_equal(v, IPPROTO_UDP);
	assert_int_equal(
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &got, &gl), 0);
	assert_int_equal(gl, sizeof(got));
	assert_int_equal(got.tv_sec, 0);
	assert_true(got.tv_usec >= 148000 && got.tv_usec <= 152000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(recv(s, &b, 1, 0), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 100);
	close(s);
}

/* fcntl: a duplicate is the same emulated socket. */
static void test_fcntl_dup(void **state)
{
	int s = swrap_test_bound(SOCK_DGRAM, "127.0.0.31", 5302), d;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char name[64];

	(void)state;
	d = fcntl(s, F_DUPFD_CLOEXEC, 100);
	assert_true(d >= 100);
	assert_true(fcntl(d, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(getsockname(d, (struct sockaddr *)&ss, &len), 0);
	assert_string_equal(swrap_test_ntop(&ss, name), "127.0.0.31:5302");
	close(s);
	len = sizeof(ss);
	assert_int_equal(getsockname(d, (struct sockaddr *)&ss, &len), 0);
	assert_string_equal(swrap_test_ntop(&ss, name), "127.0.0.31:5302");
	close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_interposed),
	    cmocka_unit_test(test_messages),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_fcntl_dup),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
