/*
 * Ancillary data on emulated sockets: IP_PKTINFO / IPV6_PKTINFO on receive
 * (the emulated destination) and on send (a chosen source address),
 * MSG_CTRUNC, SCM_RIGHTS passing many emulated sockets (and an ordinary
 * descriptor) to another process where they keep their identity,
 * SCM_CREDENTIALS passing through, and sendmmsg/recvmmsg.
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("10");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

static void send_to(int fd, const char *addr, int port, const char *text)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);

	assert_int_equal(
	    sendto(fd, text, strlen(text), 0, (struct sockaddr *)&ss, len),
	    (ssize_t)strlen(text));
}

static void test_pktinfo_v4(void **state)
{
	int srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 53);
	int cli = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 0);
	int on = 1;
	char buf[64], ctl[CMSG_SPACE(sizeof(struct in_pktinfo)) + 64], a[64];
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_name = &from,
			   .msg_namelen = sizeof(from),
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	struct in_pktinfo pi;
	int found = 0;
	ssize_t r;

	(void)state;
	assert_int_equal(
	    setsockopt(srv, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)), 0);
	send_to(cli, "127.0.0.10", 53, "query");

	r = recvmsg(srv, &m, 0);
	assert_int_equal(r, 5);
	assert_memory_equal(buf, "query", 5);
	assert_int_equal(strncmp(swrap_test_ntop(&from, a), "127.0.0.21:", 11),
			 0);
	assert_int_equal(m.msg_namelen, sizeof(struct sockaddr_in));
	for (cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO) {
			assert_int_equal(cm->cmsg_len, CMSG_LEN(sizeof(pi)));
			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			found++;
		}
	}
	assert_int_equal(found, 1);
	assert_false(m.msg_flags & MSG_CTRUNC);
	assert_true(pi.ipi_ifindex > 0);
	assert_int_equal(pi.ipi_addr.s_addr, inet_addr("127.0.0.10"));
	assert_int_equal(pi.ipi_spec_dst.s_addr, inet_addr("127.0.0.10"));

	/* Reply from the address the query went to, chosen with IP_PKTINFO. */
	memset(ctl, 0, sizeof(ctl));
	m.msg_control = ctl;
	m.msg_controllen = CMSG_SPACE(sizeof(pi));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_PKTINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(pi));
	memset(&pi, 0, sizeof(pi));
	pi.ipi_spec_dst.s_addr = inet_addr("127.0.0.10");
	memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	iov.iov_base = (void *)"answer";
	iov.iov_len = 6;
	assert_int_equal(sendmsg(srv, &m, 0), 6);

	flen = sizeof(from);
	r = recvfrom(cli, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
	assert_int_equal(r, 6);
	assert_memory_equal(buf, "answer", 6);
	assert_string_equal(swrap_test_ntop(&from, a), "127.0.0.10:53");
	close(srv);
	close(cli);
}

static void test_pktinfo_v6(void **state)
{
	int srv = swrap_test_bound(SOCK_DGRAM, "fd00::5357:5f0a", 547);
	int cli = swrap_test_bound(SOCK_DGRAM, "fd00::5357:5f15", 0);
	int on = 1;
	char buf[64], ctl[256], a[64];
	struct sockaddr_storage from;
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_name = &from,
			   .msg_namelen = sizeof(from),
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	struct in6_pktinfo pi;
	char text[INET6_ADDRSTRLEN];
	int found = 0;

	(void)state;
	assert_int_equal(
	    setsockopt(srv, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)),
	    0);
	send_to(cli, "fd00::5357:5f0a", 547, "solicit");
	assert_int_equal(recvmsg(srv, &m, 0), 7);
	assert_non_null(
	    strstr(swrap_test_ntop(&from, a), "[fd00::5357:5f15]:"));
	for (cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level == IPPROTO_IPV6 &&
		    cm->cmsg_type == IPV6_PKTINFO) {
			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			found++;
		}
	}
	assert_int_equal(found, 1);
	assert_true(pi.ipi6_ifindex > 0);
	inet_ntop(AF_INET6, &pi.ipi6_addr, text, sizeof(text));
	assert_string_equal(text, "fd00::5357:5f0a");
	close(srv);
	close(cli);
}

/* What recvmsg() reports for a control buffer of `cap` bytes on `srv`
 * (PKTINFO on), after `cli` sent it one datagram to `to`. */
struct ctl_answer {
	size_t controllen;
	bool ctrunc;
	size_t cmsg_len;
	int level, type;
	unsigned char data[64];
};

static void ctl_recv(int srv, int cli, const struct sockaddr_storage *to,
		     socklen_t tlen, size_t cap, struct ctl_answer *ans)
{
	union {
		char b[256];
		struct cmsghdr align;
	} ctl;
	char buf[16];
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cap != 0 ? ctl.b : NULL,
			   .msg_controllen = cap};
	struct cmsghdr cm;

	memset(&ctl, 0xee, sizeof(ctl));
	memset(ans, 0, sizeof(*ans));
	assert_int_equal(
	    sendto(cli, "x", 1, 0, (const struct sockaddr *)to, tlen), 1);
	assert_int_equal(recvmsg(srv, &m, 0), 1);
	ans->controllen = m.msg_controllen;
	ans->ctrunc = (m.msg_flags & MSG_CTRUNC) != 0;
	if (m.msg_controllen >= sizeof(cm)) {
		memcpy(&cm, ctl.b, sizeof(cm));
		ans->cmsg_len = cm.cmsg_len;
		ans->level = cm.cmsg_level;
		ans->type = cm.cmsg_type;
		memcpy(ans->data, ctl.b + CMSG_LEN(0),
		       cm.cmsg_len - CMSG_LEN(0) < sizeof(ans->data)
			   ? cm.cmsg_len - CMSG_LEN(0)
			   : sizeof(ans->data));
	}
}

/* A pair of UDP sockets, real (on loopback) or emulated, with PKTINFO
 * asked for on srv; false if the real stack has no such loopback. */
static bool pktinfo_pair(int family, bool real, int *srv, int *cli,
			 struct sockaddr_storage *to, socklen_t *tlen)
{
	const char *addr = family == AF_INET
			       ? (real ? "127.0.0.1" : "127.0.0.10")
			       : (real ? "::1" : "fd00::5357:5f0a");
	int on = 1;

	*tlen = swrap_test_sa(addr, real ? 0 : 1053, to);
	*srv = real ? swrap_test_real_socket(family, SOCK_DGRAM, 0)
		    : socket(family, SOCK_DGRAM, 0);
	*cli = real ? swrap_test_real_socket(family, SOCK_DGRAM, 0)
		    : socket(family, SOCK_DGRAM, 0);
	assert_true(*srv >= 0 && *cli >= 0);
	assert_int_equal(swrap_test_is_unix(*srv), !real);
	if (bind(*srv, (struct sockaddr *)to, *tlen) != 0) {
		assert_true(real);
		close(*srv);
		close(*cli);
		return false;
	}
	assert_int_equal(getsockname(*srv, (struct sockaddr *)to, tlen), 0);
	if (family == AF_INET) {
		assert_int_equal(
		    setsockopt(*srv, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)),
		    0);
	} else {
		assert_int_equal(setsockopt(*srv, IPPROTO_IPV6,
					    IPV6_RECVPKTINFO, &on, sizeof(on)),
				 0);
	}
	return true;
}

/* The kernel needs CMSG_LEN (not CMSG_SPACE) of room for the last
 * message, cuts it with MSG_CTRUNC to a shorter room of at least a
 * header, and reports only MSG_CTRUNC below that: the emulated PKTINFO
 * fits exactly where a real socket's does, byte for byte in the lengths
 * and flags, for every size around the limits. */
static void test_pktinfo_fits_as_kernel(void **state)
{
	(void)state;
	for (int family = AF_INET; family != -1;
	     family = family == AF_INET ? AF_INET6 : -1) {
		size_t pl = family == AF_INET ? sizeof(struct in_pktinfo)
					      : sizeof(struct in6_pktinfo);
		const size_t caps[] = {0,
				       4,
				       sizeof(struct cmsghdr) - 1,
				       sizeof(struct cmsghdr),
				       sizeof(struct cmsghdr) + 4,
				       CMSG_LEN(pl) - 1,
				       CMSG_LEN(pl),
				       CMSG_SPACE(pl),
				       CMSG_SPACE(pl) + 8};
		struct sockaddr_storage rto, eto;
		socklen_t rlen, elen;
		int rs, rc, es, ec;
		bool have_real =
		    pktinfo_pair(family, true, &rs, &rc, &rto, &rlen);

		assert_true(pktinfo_pair(family, false, &es, &ec, &eto, &elen));
		for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
			struct ctl_answer r, e;

			ctl_recv(es, ec, &eto, elen, caps[i], &e);
			if (caps[i] == CMSG_LEN(pl)) {
				/* The case: delivered, not cut. */
				assert_false(e.ctrunc);
				assert_int_equal(e.controllen, CMSG_LEN(pl));
				assert_int_equal(e.cmsg_len, CMSG_LEN(pl));
				assert_int_equal(e.level, family == AF_INET
							      ? IPPROTO_IP
							      : IPPROTO_IPV6);
			}
			if (!have_real) {
				continue;
			}
			ctl_recv(rs, rc, &rto, rlen, caps[i], &r);
			printf(
			    "family %d, %zu bytes: kernel %zu%s, ours %zu%s\n",
			    family, caps[i], r.controllen,
			    r.ctrunc ? " CTRUNC" : "", e.controllen,
			    e.ctrunc ? " CTRUNC" : "");
			assert_int_equal(e.controllen, r.controllen);
			assert_int_equal(e.ctrunc, r.ctrunc);
			assert_int_equal(e.cmsg_len, r.cmsg_len);
			assert_int_equal(e.level, r.level);
			assert_int_equal(e.type, r.type);
		}
		if (have_real) {
			close(rs);
			close(rc);
		}
		close(es);
		close(ec);
	}
}

/* A socket bound to the wildcard (the default interface, 10) answers
 * from another interface it chose with IP_PKTINFO. */
static void test_pktinfo_chosen_source(void **state)
{
	int srv = swrap_test_bound(SOCK_DGRAM, "0.0.0.0", 5353);
	int cli = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 0);
	char buf[16], ctl[CMSG_SPACE(sizeof(struct in_pktinfo))], a[64];
	struct sockaddr_storage to, from;
	socklen_t tlen = swrap_test_sa("127.0.0.21", 0, &to), flen = sizeof(to);
	struct iovec iov = {.iov_base = (void *)"from 11", .iov_len = 7};
	struct msghdr m = {.msg_name = &to,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct in_pktinfo pi;
	struct cmsghdr *cm;

	(void)state;
	assert_int_equal(getsockname(cli, (struct sockaddr *)&to, &flen), 0);
	m.msg_namelen = tlen;
	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_PKTINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(pi));
	memset(&pi, 0, sizeof(pi));
	pi.ipi_spec_dst.s_addr = inet_addr("127.0.0.11");
	memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	assert_int_equal(sendmsg(srv, &m, 0), 7);

	flen = sizeof(from);
	assert_int_equal(
	    recvfrom(cli, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen),
	    7);
	assert_memory_equal(buf, "from 11", 7);
	assert_string_equal(swrap_test_ntop(&from, a), "127.0.0.11:5353");

	/* Without IP_PKTINFO it is the socket's own address again. */
	send_to(srv, "127.0.0.21", ntohs(((struct sockaddr_in *)&to)->sin_port),
		"own");
	flen = sizeof(from);
	assert_int_equal(
	    recvfrom(cli, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen),
	    3);
	assert_string_equal(swrap_test_ntop(&from, a), "127.0.0.10:5353");
	close(srv);
	close(cli);
}

/* A control message that claims more bytes than the buffer holds (found
 * by tests/fuzz, cmsg): the kernel refuses the whole message with EINVAL
 * and sends nothing; so does the wrapper, and it reads nothing past the
 * buffer (the ASan build checks that: the buffer is exactly 16 bytes). */
static void cmsg_past_buffer(int srv, int cli,
			     const struct sockaddr_storage *to, socklen_t tlen)
{
	char *ctl = malloc(sizeof(struct cmsghdr));
	struct iovec iov = {.iov_base = (void *)"x", .iov_len = 1};
	struct msghdr m = {.msg_name = (void *)to,
			   .msg_namelen = tlen,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(struct cmsghdr)};
	struct cmsghdr *cm = (struct cmsghdr *)(void *)ctl;
	char buf[4];

	cm->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_PKTINFO;
	errno = 0;
	assert_int_equal(sendmsg(cli, &m, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(recv(srv, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	free(ctl);
}

static void test_cmsg_past_buffer(void **state)
{
	struct sockaddr_storage to;
	socklen_t tlen = sizeof(to);
	int srv, cli;

	(void)state;
	/* the kernel's answer first */
	srv = swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0);
	cli = swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0);
	swrap_test_sa("127.0.0.1", 0, &to);
	assert_int_equal(
	    bind(srv, (struct sockaddr *)&to, sizeof(struct sockaddr_in)), 0);
	assert_int_equal(getsockname(srv, (struct sockaddr *)&to, &tlen), 0);
	cmsg_past_buffer(srv, cli, &to, tlen);
	close(srv);
	close(cli);

	srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 5454);
	cli = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 0);
	tlen = swrap_test_sa("127.0.0.10", 5454, &to);
	cmsg_past_buffer(srv, cli, &to, tlen);
	close(srv);
	close(cli);
}

#define NPASS 251 /* + 2: SCM_MAX_FD, the most the kernel passes at once */

static void send_fds(int chan, const int *fds, int n)
{
	size_t clen = CMSG_SPACE(sizeof(int) * (size_t)n);
	char *ctl = calloc(1, clen);
	struct iovec iov = {.iov_base = (void *)"F", .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = clen};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
	assert_int_equal(sendmsg(chan, &m, 0), 1);
	free(ctl);
}

/* The receiving process: checks every passed socket and uses it. Returns
 * an exit code (0 = all good). */
static int receiver(int chan)
{
	size_t clen = CMSG_SPACE(sizeof(int) * (NPASS + 2));
	char *ctl = calloc(1, clen), byte, a[64], text[64];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = clen};
	struct sockaddr_storage ss;
	socklen_t len;
	struct cmsghdr *cm;
	int fds[NPASS + 2], n, i;

	if (recvmsg(chan, &m, 0) != 1 || (m.msg_flags & MSG_CTRUNC)) {
		return 10;
	}
	cm = CMSG_FIRSTHDR(&m);
	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS) {
		return 11;
	}
	n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	if (n != NPASS + 2) {
		return 12;
	}
	memcpy(fds, CMSG_DATA(cm), sizeof(int) * (size_t)n);
	for (i = 0; i < NPASS; i++) {
		len = sizeof(ss);
		if (getsockname(fds[i], (struct sockaddr *)&ss, &len) != 0 ||
		    strcmp(swrap_test_ntop(&ss, a), "127.0.0.10:7") != 0) {
			return 13;
		}
		len = sizeof(ss);
		if (getpeername(fds[i], (struct sockaddr *)&ss, &len) != 0 ||
		    strncmp(swrap_test_ntop(&ss, a), "127.0.0.10:", 11) != 0) {
			return 14;
		}
		snprintf(text, sizeof(text), "conn %03d", i);
		if (write(fds[i], text, 8) != 8) {
			return 15;
		}
		close(fds[i]);
	}
	/* The UDP socket: bound to 127.0.0.10:9, sends from there. */
	len = sizeof(ss);
	if (getsockname(fds[NPASS], (struct sockaddr *)&ss, &len) != 0 ||
	    strcmp(swrap_test_ntop(&ss, a), "127.0.0.10:9") != 0) {
		return 16;
	}
	swrap_test_sa("127.0.0.21", 99, &ss);
	if (sendto(fds[NPASS], "udp", 3, 0, (struct sockaddr *)&ss,
		   sizeof(struct sockaddr_in)) != 3) {
		return 17;
	}
	/* The pipe: an ordinary descriptor, untouched. */
	if (write(fds[NPASS + 1], "P", 1) != 1) {
		return 18;
	}
	free(ctl);
	return 0;
}

/* Whether the C library's sendmsg() passes SCM_MAX_FD descriptors at once,
 * as the kernel does: musl's copies the control data into 1024 bytes and
 * refuses more (ENOMEM), with or without the wrapper. */
static bool libc_passes_scm_max_fd(void)
{
	int chan[2], fds[253];
	char ctl[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = {.iov_base = (void *)"F", .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	ssize_t r;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, chan), 0);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		fds[i] = chan[1];
	}
	memset(ctl, 0, sizeof(ctl));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	r = sendmsg(chan[0], &m, 0);
	close(chan[0]);
	close(chan[1]);
	return r == 1;
}

static void test_scm_rights_many_sockets(void **state)
{
	int chan[2], pfd[2], lst, udp, peer_udp, status;
	int cli[NPASS], fds[NPASS + 2];
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[16], a[64];
	pid_t pid;
	int i;

	(void)state;
	if (!libc_passes_scm_max_fd()) {
		skip();
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, chan), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(chan[0]);
		_exit(receiver(chan[1]));
	}
	close(chan[1]);

	/* Made after the fork: the child has never seen these. */
	len = swrap_test_sa("127.0.0.10", 7, &ss);
	lst = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(lst, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(lst, NPASS), 0);
	for (i = 0; i < NPASS; i++) {
		cli[i] = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 7);
		fds[i] = accept(lst, NULL, NULL);
		assert_true(fds[i] >= 0);
	}
	udp = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 9);
	peer_udp = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 99);
	assert_int_equal(pipe(pfd), 0);
	fds[NPASS] = udp;
	fds[NPASS + 1] = pfd[1];
	send_fds(chan[0], fds, NPASS + 2);

	for (i = 0; i < NPASS; i++) {
		char want[16];

		snprintf(want, sizeof(want), "conn %03d", i);
		swrap_test_read_all(cli[i], buf, 8);
		assert_memory_equal(buf, want, 8);
		close(cli[i]);
		close(fds[i]);
	}
	len = sizeof(ss);
	assert_int_equal(recvfrom(peer_udp, buf, sizeof(buf), 0,
				  (struct sockaddr *)&ss, &len),
			 3);
	assert_string_equal(swrap_test_ntop(&ss, a), "127.0.0.10:9");
	assert_int_equal(read(pfd[0], buf, 1), 1);
	assert_int_equal(buf[0], 'P');

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(lst);
	close(udp);
	close(peer_udp);
	close(pfd[0]);
	close(pfd[1]);
	close(chan[0]);
}

/* One descriptor more than the kernel passes at once (SCM_MAX_FD, 253):
 * EINVAL, as the kernel answers, and nothing sent; 253 of the same go. */
static void test_scm_rights_over_the_limit(void **state)
{
	int chan[2], fds[254], s, n = 0;
	char ctl[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = {.iov_base = (void *)"F", .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	(void)state;
	if (!libc_passes_scm_max_fd()) {
		skip();
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, chan), 0);
	s = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 53);
	for (int i = 0; i < 254; i++) {
		fds[i] = s;
	}
	memset(ctl, 0, sizeof(ctl));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	errno = 0;
	assert_int_equal(sendmsg(chan[0], &m, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(chan[1], FIONREAD, &n), 0);
	assert_int_equal(n, 0);
	cm->cmsg_len = CMSG_LEN(sizeof(int) * 253);
	m.msg_controllen = CMSG_SPACE(sizeof(int) * 253);
	assert_int_equal(sendmsg(chan[0], &m, 0), 1);
	close(chan[0]);
	close(chan[1]);
	close(s);
}

/* SCM_RIGHTS of an emulated socket in a buffer of exactly CMSG_LEN(one
 * descriptor) arrives whole, and is the emulated socket in the receiver;
 * over an emulated UDP socket with IP_PKTINFO, the kernel's SCM_RIGHTS
 * and our PKTINFO after it fit in CMSG_SPACE(int) + CMSG_LEN(in_pktinfo),
 * one byte less cuts PKTINFO with MSG_CTRUNC. */
static void test_rights_fit_exactly(void **state)
{
	int chan[2], passed, got = -1, on = 1;
	union {
		char b[CMSG_SPACE(sizeof(int)) +
		       CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl;
	char buf[8], a[64];
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;
	int srv, cli;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, chan), 0);
	passed = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 4444);
	send_fds(chan[0], &passed, 1);
	m.msg_control = ctl.b;
	m.msg_controllen = CMSG_LEN(sizeof(int));
	assert_int_equal(recvmsg(chan[1], &m, 0), 1);
	assert_false(m.msg_flags & MSG_CTRUNC);
	assert_int_equal(m.msg_controllen, CMSG_LEN(sizeof(int)));
	cm = CMSG_FIRSTHDR(&m);
	assert_non_null(cm);
	assert_int_equal(cm->cmsg_type, SCM_RIGHTS);
	memcpy(&got, CMSG_DATA(cm), sizeof(got));
	{
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		assert_int_equal(getsockname(got, (struct sockaddr *)&ss, &len),
				 0);
		assert_string_equal(swrap_test_ntop(&ss, a), "127.0.0.10:4444");
	}
	close(got);

	/* Descriptors over an emulated UDP socket, with PKTINFO. */
	srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 4445);
	cli = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 0);
	assert_int_equal(
	    connect(cli,
		    (struct sockaddr *)&(struct sockaddr_in){
			.sin_family = AF_INET,
			.sin_port = htons(4445),
			.sin_addr.s_addr = inet_addr("127.0.0.10")},
		    sizeof(struct sockaddr_in)),
	    0);
	assert_int_equal(
	    setsockopt(srv, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)), 0);
	for (int cut = 0; cut < 2; cut++) {
		size_t want = CMSG_SPACE(sizeof(int)) +
			      CMSG_LEN(sizeof(struct in_pktinfo));

		send_fds(cli, &passed, 1);
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = want - (size_t)cut;
		m.msg_flags = 0;
		assert_int_equal(recvmsg(srv, &m, 0), 1);
		assert_int_equal((m.msg_flags & MSG_CTRUNC) != 0, cut);
		assert_int_equal(m.msg_controllen, want - (size_t)cut);
		cm = CMSG_FIRSTHDR(&m);
		assert_int_equal(cm->cmsg_type, SCM_RIGHTS);
		memcpy(&got, CMSG_DATA(cm), sizeof(got));
		close(got);
		/* (CMSG_NXTHDR refuses a cut message: found by hand.) */
		cm = (struct cmsghdr *)(ctl.b + CMSG_SPACE(sizeof(int)));
		assert_int_equal(cm->cmsg_level, IPPROTO_IP);
		assert_int_equal(cm->cmsg_type, IP_PKTINFO);
		assert_int_equal(cm->cmsg_len,
				 CMSG_LEN(sizeof(struct in_pktinfo)) -
				     (size_t)cut);
	}
	close(srv);
	close(cli);
	close(passed);
	close(chan[0]);
	close(chan[1]);
}

static void test_scm_credentials_pass_through(void **state)
{
	int sv[2], on = 1;
	struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()},
		     got;
	char ctl[CMSG_SPACE(sizeof(struct ucred))], byte = 'c';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	assert_int_equal(
	    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0);
	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_CREDENTIALS;
	cm->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(cm), &cred, sizeof(cred));
	assert_int_equal(sendmsg(sv[0], &m, 0), 1);

	memset(ctl, 0, sizeof(ctl));
	m.msg_controllen = sizeof(ctl);
	assert_int_equal(recvmsg(sv[1], &m, 0), 1);
	cm = CMSG_FIRSTHDR(&m);
	assert_non_null(cm);
	assert_int_equal(cm->cmsg_type, SCM_CREDENTIALS);
	memcpy(&got, CMSG_DATA(cm), sizeof(got));
	assert_int_equal(got.pid, cred.pid);
	assert_int_equal(got.uid, cred.uid);
	assert_int_equal(got.gid, cred.gid);
	close(sv[0]);
	close(sv[1]);
}

#define NMSG 8

static void test_sendmmsg_recvmmsg(void **state)
{
	int srv = swrap_test_bound(SOCK_DGRAM, "127.0.0.10", 123);
	int cli = swrap_test_bound(SOCK_DGRAM, "127.0.0.21", 0);
	struct mmsghdr out[NMSG], in[NMSG];
	struct iovec oiov[NMSG], iiov[NMSG];
	char obuf[NMSG][32], ibuf[NMSG][32], a[64];
	struct sockaddr_storage dst, from[NMSG], me;
	socklen_t dlen = swrap_test_sa("127.0.0.10", 123, &dst),
		  mlen = sizeof(me);
	char want[64];
	int i;

	(void)state;
	assert_int_equal(getsockname(cli, (struct sockaddr *)&me, &mlen), 0);
	memset(out, 0, sizeof(out));
	memset(in, 0, sizeof(in));
	for (i = 0; i < NMSG; i++) {
		snprintf(obuf[i], sizeof(obuf[i]), "datagram %d%.*s", i, i,
			 "xxxxxxxx");
		oiov[i].iov_base = obuf[i];
		oiov[i].iov_len = strlen(obuf[i]);
		out[i].msg_hdr.msg_iov = &oiov[i];
		out[i].msg_hdr.msg_iovlen = 1;
		out[i].msg_hdr.msg_name = &dst;
		out[i].msg_hdr.msg_namelen = dlen;
		iiov[i].iov_base = ibuf[i];
		iiov[i].iov_len = sizeof(ibuf[i]);
		in[i].msg_hdr.msg_iov = &iiov[i];
		in[i].msg_hdr.msg_iovlen = 1;
		in[i].msg_hdr.msg_name = &from[i];
		in[i].msg_hdr.msg_namelen = sizeof(from[i]);
	}
	assert_int_equal(sendmmsg(cli, out, NMSG, 0), NMSG);
	for (i = 0; i < NMSG; i++) {
		assert_int_equal(out[i].msg_len, strlen(obuf[i]));
	}
	assert_int_equal(recvmmsg(srv, in, NMSG, MSG_WAITFORONE, NULL), NMSG);
	swrap_test_ntop(&me, want);
	for (i = 0; i < NMSG; i++) {
		assert_int_equal(in[i].msg_len, strlen(obuf[i]));
		assert_memory_equal(ibuf[i], obuf[i], in[i].msg_len);
		assert_string_equal(swrap_test_ntop(&from[i], a), want);
	}
	/* Nothing left: MSG_DONTWAIT gives EAGAIN for the first message. */
	assert_int_equal(recvmmsg(srv, in, NMSG, MSG_DONTWAIT, NULL), -1);
	assert_int_equal(errno, EAGAIN);
	close(srv);
	close(cli);
}

/* A TCP connection carries no IP options: sshd refuses connections that
 * seem to. */
static void test_ip_options_empty(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", 22, &ss), olen;
	unsigned char opts[40];
	int lst = socket(AF_INET, SOCK_STREAM, 0), cli, acc;

	(void)state;
	assert_int_equal(bind(lst, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(lst, 1), 0);
	cli = swrap_test_connect(SOCK_STREAM, "127.0.0.10", 22);
	acc = accept(lst, NULL, NULL);
	assert_true(acc >= 0);
	olen = sizeof(opts);
	assert_int_equal(getsockopt(acc, IPPROTO_IP, IP_OPTIONS, opts, &olen),
			 0);
	assert_int_equal(olen, 0);
	close(acc);
	close(cli);
	close(lst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pktinfo_v4),
	    cmocka_unit_test(test_pktinfo_v6),
	    cmocka_unit_test(test_pktinfo_fits_as_kernel),
	    cmocka_unit_test(test_pktinfo_chosen_source),
	    cmocka_unit_test(test_scm_rights_many_sockets),
	    cmocka_unit_test(test_scm_rights_over_the_limit),
	    cmocka_unit_test(test_rights_fit_exactly),
	    cmocka_unit_test(test_scm_credentials_pass_through),
	    cmocka_unit_test(test_sendmmsg_recvmmsg),
	    cmocka_unit_test(test_ip_options_empty),
	    cmocka_unit_test(test_cmsg_past_buffer),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
