/*
 * supbad: bad and edge socket calls, one line each, for
 * test_supervised_errors.sh, which runs it (linked -static: supbad_static)
 * on the real loopback and supervised under cwrap, and compares the
 * lines: the supervised program must get the kernel's answers.
 *
 *   supbad ADDR4 ADDR6
 *
 * ADDR4, ADDR6: numeric addresses of this host in each family (natively
 * 127.0.0.1 and ::1; under cwrap the emulated 127.0.0.10 and
 * fd00::5357:5f0a). The whole list runs on IPv4 sockets (lines "v4.NAME")
 * and on IPv6 sockets ("v6.NAME"), with ADDR4 or ADDR6 as the socket's
 * own family's address (port 0, or the port of a socket the case made),
 * and the other one where a case needs the other family. Ports the cases
 * need free are those of sockets bound to port 0 and closed.
 *
 * The first line says whether the process runs supervised ("supervised:
 * yes" or "no": the question of src/common/cwrap_supervise.h). Then one
 * line per case: "v4.NAME: rc=R errno=E", E the errno's symbolic name, or
 * "-" when the call succeeded (rc >= 0); a descriptor the call returned
 * is printed "rc=fd" (its number may differ). A case that succeeded may
 * add what the call gave back: len=N (the length an address or option
 * call reported), val=N (an option's value), fam=N, nonblock= cloexec=
 * (the flags of a new descriptor). A failed call adds nothing (what a
 * failed call leaves in the caller's length varies with the kernel's
 * version). A line ends with "hung" when the call did not return within
 * SUPBAD_TIMEOUT seconds (default 3; it was interrupted by SIGALRM, hence
 * errno=EINTR: natively none of these calls blocks). A call that crashed
 * the program (a C library that reads the bad pointer itself: musl's
 * sendmsg()) prints "rc=crash errno=SIGSEGV". A case whose setup failed
 * prints "v4.NAME: setup failed: WHAT: E". Addresses and ports are never
 * printed. The "_after" lines say whether the failed call before them
 * took the connection or datagram that was waiting (EAGAIN: it did).
 * Exit status 0 (the lines are the result), 1 when it cannot start, 2
 * for bad arguments.
 *
 * The program works in a directory of its own under $TMPDIR (or /tmp):
 * the cases that give an AF_UNIX address to an inet socket name "u" in
 * it, and say whether a file "u" appeared (file=yes): natively it never
 * does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "cwrap_supervise.h"

/* An address no process has mapped (below mmap_min_addr). */
#define BAD ((void *)16)
/* The payload of the datagrams. */
#define MSG "hello"
#define MSG_LEN 5

/* ---- output -------------------------------------------------------------- */

/* The errno names the cases may meet (another one: E#N). */
/* clang-format off */
#define NAMED(e) {e, #e}
static const struct {
	int e;
	const char *name;
} enames[] = {
	NAMED(EPERM), NAMED(ENOENT), NAMED(EINTR), NAMED(EIO), NAMED(EBADF),
	NAMED(EAGAIN), NAMED(ENOMEM), NAMED(EACCES), NAMED(EFAULT),
	NAMED(EBUSY), NAMED(EEXIST), NAMED(ENOTDIR), NAMED(EINVAL),
	NAMED(ENFILE), NAMED(EMFILE), NAMED(ENOSPC), NAMED(EPIPE),
	NAMED(ENOSYS), NAMED(ENAMETOOLONG), NAMED(ENOTSOCK),
	NAMED(EDESTADDRREQ), NAMED(EMSGSIZE), NAMED(EPROTOTYPE),
	NAMED(ENOPROTOOPT), NAMED(EPROTONOSUPPORT), NAMED(ESOCKTNOSUPPORT),
	NAMED(EOPNOTSUPP), NAMED(EPFNOSUPPORT), NAMED(EAFNOSUPPORT),
	NAMED(EADDRINUSE), NAMED(EADDRNOTAVAIL), NAMED(ENETDOWN),
	NAMED(ENETUNREACH), NAMED(ECONNABORTED), NAMED(ECONNRESET),
	NAMED(ENOBUFS), NAMED(EISCONN), NAMED(ENOTCONN), NAMED(ESHUTDOWN),
	NAMED(ETIMEDOUT), NAMED(ECONNREFUSED), NAMED(EHOSTUNREACH),
	NAMED(EALREADY), NAMED(EINPROGRESS),
};
/* clang-format on */

static const char *ename(int e)
{
	static char buf[16];

	for (size_t i = 0; i < sizeof(enames) / sizeof(enames[0]); i++) {
		if (enames[i].e == e) {
			return enames[i].name;
		}
	}
	snprintf(buf, sizeof(buf), "E#%d", e);
	return buf;
}

static const char *tag; /* "v4" or "v6" */
static long g_rc;	/* the last call's result */
static int g_err;	/* and its errno */
static volatile sig_atomic_t fired;
static unsigned timeout_s = 3;

static void on_alarm(int sig)
{
	(void)sig;
	fired = 1;
}

/* A call that crashed the program (a wrapper in the process that
 * followed a bad pointer: never the kernel, nor the supervisor). */
static sigjmp_buf crash_jb;
static volatile sig_atomic_t crashed;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(crash_jb, 1);
}

static void arm(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = timeout_s;
	fired = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Make a call under the alarm, its result in g_rc and g_err. */
#define CALL(expr)                                                             \
	do {                                                                   \
		crashed = 0;                                                   \
		if (sigsetjmp(crash_jb, 1) == 0) {                             \
			arm();                                                 \
			errno = 0;                                             \
			g_rc = (long)(expr);                                   \
			g_err = errno;                                         \
		} else {                                                       \
			g_rc = -1;                                             \
			g_err = 0;                                             \
			crashed = 1;                                           \
		}                                                              \
		disarm();                                                      \
	} while (0)

/* NAME: rc=R errno=E [extra] for the last call; `fd`: its result is a
 * descriptor. */
static void vline(const char *name, bool fd, const char *fmt, va_list ap)
{
	char rc[32];

	if (g_rc >= 0 && fd) {
		snprintf(rc, sizeof(rc), "fd");
	} else {
		snprintf(rc, sizeof(rc), "%ld", g_rc);
	}
	if (crashed) {
		printf("%s.%s: rc=crash errno=SIGSEGV\n", tag, name);
		fflush(stdout);
		return;
	}
	printf("%s.%s: rc=%s errno=%s", tag, name, rc,
	       g_rc >= 0 ? "-" : ename(g_err));
	if (g_rc >= 0 && fmt != NULL && *fmt != '\0') {
		putchar(' ');
		vprintf(fmt, ap);
	}
	if (fired) {
		printf(" hung");
	}
	putchar('\n');
	fflush(stdout);
}

static void line(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(name, false, fmt, ap);
	va_end(ap);
}

static void fd_line(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(name, true, fmt, ap);
	va_end(ap);
}

/* The same for a call that returned a descriptor: its flags added, and
 * closed. */
static void fdline(const char *name)
{
	if (g_rc >= 0) {
		int fd = (int)g_rc;
		int fl = fcntl(fd, F_GETFL), fdf = fcntl(fd, F_GETFD);

		fd_line(name, "nonblock=%d cloexec=%d", (fl & O_NONBLOCK) != 0,
			(fdf & FD_CLOEXEC) != 0);
		close(fd);
		return;
	}
	fd_line(name, NULL);
}

static void setup_failed(const char *name, const char *what)
{
	printf("%s.%s: setup failed: %s: %s\n", tag, name, what, ename(errno));
	fflush(stdout);
}

/* ---- addresses ----------------------------------------------------------- */

struct fam {
	const char *tag;
	int family;
	struct sockaddr_storage addr; /* this family's address, port 0 */
	socklen_t len;
	struct sockaddr_storage other; /* the other family's, port 0 */
	socklen_t olen;
	struct sockaddr_storage mapped;	  /* IPv6: ADDR4 v4-mapped */
	struct sockaddr_storage nonlocal; /* not this host's (TEST-NET) */
};

static socklen_t parse(const char *s, int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		if (inet_pton(AF_INET, s, &sin->sin_addr) != 1) {
			fprintf(stderr, "supbad: bad IPv4 address '%s'\n", s);
			exit(2);
		}
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) != 1) {
		fprintf(stderr, "supbad: bad IPv6 address '%s'\n", s);
		exit(2);
	}
	return sizeof(*sin6);
}

static void set_port(struct sockaddr_storage *ss, unsigned short port)
{
	if (ss->ss_family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	} else {
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	}
}

/* The address `a` with port `port`. */
static struct sockaddr_storage with_port(const struct sockaddr_storage *a,
					 unsigned short port)
{
	struct sockaddr_storage ss = *a;

	set_port(&ss, port);
	return ss;
}

static unsigned short port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		return 0;
	}
	return ntohs(ss.ss_family == AF_INET
			 ? ((struct sockaddr_in *)&ss)->sin_port
			 : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

#define SA(p) ((struct sockaddr *)(p))

/* ---- setups: -1 (said) when one fails ------------------------------------ */

static const struct fam *F;

static int sock(const char *name, int type)
{
	int fd = socket(F->family, type, 0);

	if (fd < 0) {
		setup_failed(name, "socket");
	}
	return fd;
}

/* A socket of `type` bound to ADDR:0. */
static int bound(const char *name, int type)
{
	int fd = sock(name, type);

	if (fd >= 0 && bind(fd, SA(&F->addr), F->len) != 0) {
		setup_failed(name, "bind");
		close(fd);
		return -1;
	}
	return fd;
}

/* A TCP listener on ADDR:0; its address in *ss. */
static int listener(const char *name, struct sockaddr_storage *ss)
{
	int fd = bound(name, SOCK_STREAM);

	if (fd < 0) {
		return -1;
	}
	if (listen(fd, 16) != 0) {
		setup_failed(name, "listen");
		close(fd);
		return -1;
	}
	*ss = with_port(&F->addr, port_of(fd));
	return fd;
}

/* A client connected to the listener at `ss` (the connection pending). */
static int client(const char *name, const struct sockaddr_storage *ss)
{
	int fd = sock(name, SOCK_STREAM);

	if (fd >= 0 && connect(fd, SA(ss), F->len) != 0) {
		setup_failed(name, "connect");
		close(fd);
		return -1;
	}
	return fd;
}

/* A connected pair: *c the client, *a the accepted end. 0 or -1. */
static int pair(const char *name, int *c, int *a)
{
	struct sockaddr_storage ss;
	int l = listener(name, &ss);

	*c = *a = -1;
	if (l < 0) {
		return -1;
	}
	*c = client(name, &ss);
	if (*c >= 0) {
		*a = accept(l, NULL, NULL);
		if (*a < 0) {
			setup_failed(name, "accept");
			close(*c);
			*c = -1;
		}
	}
	close(l);
	return *a >= 0 ? 0 : -1;
}

/* A port of ADDR that nobody uses (a socket of `type` bound to port 0,
 * then closed), 0 (said) if none. */
static unsigned short free_port(const char *name, int type)
{
	int fd = bound(name, type);
	unsigned short p;

	if (fd < 0) {
		return 0;
	}
	p = port_of(fd);
	close(fd);
	return p;
}

static bool readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, 5000) == 1;
}

/* A UDP socket bound to ADDR:0 with `n` datagrams MSG waiting (sent by
 * itself); its address in *ss (may be NULL). */
static int udp_with_data(const char *name, int n, struct sockaddr_storage *ss)
{
	struct sockaddr_storage me;
	int fd = bound(name, SOCK_DGRAM);

	if (fd < 0) {
		return -1;
	}
	me = with_port(&F->addr, port_of(fd));
	for (int i = 0; i < n; i++) {
		if (sendto(fd, MSG, MSG_LEN, 0, SA(&me), F->len) != MSG_LEN) {
			setup_failed(name, "sendto");
			close(fd);
			return -1;
		}
	}
	if (n > 0 && !readable(fd)) {
		errno = ETIMEDOUT;
		setup_failed(name, "poll");
		close(fd);
		return -1;
	}
	if (ss != NULL) {
		*ss = me;
	}
	return fd;
}

/* A closed descriptor's number. */
static int closed_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static int pipe_r = -1; /* a descriptor that is not a socket */

/* A sockaddr_un naming "u" (in the working directory). */
static struct sockaddr_un unix_addr(void)
{
	struct sockaddr_un un;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	strcpy(un.sun_path, "u");
	return un;
}

static const char *file_u(void)
{
	struct stat st;

	if (lstat("u", &st) == 0) {
		unlink("u");
		return "file=yes";
	}
	return "file=no";
}

/* ---- the cases ----------------------------------------------------------- */

static void cases_socket(void)
{
	int fam = F->family;

	CALL(socket(fam, SOCK_STREAM, 0));
	fdline("socket.stream");
	CALL(socket(fam, SOCK_DGRAM, 0));
	fdline("socket.dgram");
	CALL(socket(fam, SOCK_STREAM, IPPROTO_TCP));
	fdline("socket.stream_tcp");
	CALL(socket(fam, SOCK_DGRAM, IPPROTO_UDP));
	fdline("socket.dgram_udp");
	CALL(socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	fdline("socket.stream_nonblock_cloexec");
	CALL(socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	fdline("socket.dgram_cloexec");
	CALL(socket(fam, 99, 0));
	fdline("socket.type99");
	CALL(socket(fam, SOCK_SEQPACKET, 0));
	fdline("socket.seqpacket");
	CALL(socket(fam, SOCK_STREAM | 0x1000, 0));
	fdline("socket.type_badflag");
	CALL(socket(fam, SOCK_STREAM, 200));
	fdline("socket.stream_proto200");
	CALL(socket(fam, SOCK_STREAM, IPPROTO_UDP));
	fdline("socket.stream_udp");
	CALL(socket(fam, SOCK_DGRAM, IPPROTO_TCP));
	fdline("socket.dgram_tcp");
	CALL(socket(fam, SOCK_STREAM, -1));
	fdline("socket.proto_neg");
	CALL(socket(fam, SOCK_RAW,
		    fam == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6));
	fdline("socket.raw");
	CALL(socket(fam, SOCK_DGRAM,
		    fam == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6));
	fdline("socket.dgram_icmp");
}

static void cases_bind(void)
{
	struct sockaddr_storage big[2], ss;
	struct sockaddr_un un = unix_addr();
	int fd, fd2;
	int one = 1;
	unsigned short p;

	fd = sock("bind.null", SOCK_STREAM);
	CALL(bind(fd, NULL, F->len));
	line("bind.null", NULL);
	close(fd);
	fd = sock("bind.unmapped", SOCK_STREAM);
	CALL(bind(fd, BAD, F->len));
	line("bind.unmapped", NULL);
	close(fd);
	fd = sock("bind.null_len0", SOCK_STREAM);
	CALL(bind(fd, NULL, 0));
	line("bind.null_len0", NULL);
	close(fd);
	fd = sock("bind.len0", SOCK_STREAM);
	CALL(bind(fd, SA(&F->addr), 0));
	line("bind.len0", NULL);
	close(fd);
	fd = sock("bind.len1", SOCK_STREAM);
	CALL(bind(fd, SA(&F->addr), 1));
	line("bind.len1", NULL);
	close(fd);
	fd = sock("bind.len_short", SOCK_STREAM);
	CALL(bind(fd, SA(&F->addr), F->len - 1));
	line("bind.len_short", NULL);
	close(fd);
	fd = sock("bind.len_neg", SOCK_STREAM);
	CALL(bind(fd, SA(&F->addr), (socklen_t)-1));
	line("bind.len_neg", NULL);
	close(fd);
	memset(big, 0, sizeof(big));
	memcpy(big, &F->addr, F->len);
	fd = sock("bind.len200", SOCK_STREAM);
	CALL(bind(fd, SA(big), 200));
	line("bind.len200", NULL);
	close(fd);
	fd = sock("bind.len_storage", SOCK_STREAM);
	CALL(bind(fd, SA(big), sizeof(struct sockaddr_storage)));
	line("bind.len_storage", NULL);
	close(fd);
	fd = sock("bind.len24", SOCK_STREAM);
	CALL(bind(fd, SA(big), 24));
	line("bind.len24", NULL);
	close(fd);

	/* a bound socket: bound again, its port taken by another */
	fd = sock("bind.ok", SOCK_STREAM);
	CALL(bind(fd, SA(&F->addr), F->len));
	line("bind.ok", NULL);
	CALL(bind(fd, SA(&F->addr), F->len));
	line("bind.again", NULL);
	p = port_of(fd);
	ss = with_port(&F->addr, p);
	fd2 = sock("bind.inuse", SOCK_STREAM);
	CALL(bind(fd2, SA(&ss), F->len));
	line("bind.inuse", NULL);
	close(fd2);
	fd2 = sock("bind.inuse_reuseaddr", SOCK_STREAM);
	setsockopt(fd2, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	CALL(bind(fd2, SA(&ss), F->len));
	line("bind.inuse_reuseaddr", NULL);
	close(fd2);
	close(fd);
	fd = sock("bind.udp", SOCK_DGRAM);
	CALL(bind(fd, SA(&F->addr), F->len));
	line("bind.udp", NULL);
	close(fd);

	/* the other family's address, in its own length and in ours */
	fd = sock("bind.other_family", SOCK_STREAM);
	CALL(bind(fd, SA(&F->other), F->olen));
	line("bind.other_family", NULL);
	close(fd);
	/* (cut, or padded with zeros) */
	fd = sock("bind.other_family_ourlen", SOCK_STREAM);
	CALL(bind(fd, SA(&F->other), F->len));
	line("bind.other_family_ourlen", NULL);
	close(fd);
	/* AF_UNSPEC: the any address, and ours */
	memset(&ss, 0, sizeof(ss));
	fd = sock("bind.unspec_any", SOCK_STREAM);
	CALL(bind(fd, SA(&ss), F->len));
	line("bind.unspec_any", NULL);
	close(fd);
	ss = F->addr;
	ss.ss_family = AF_UNSPEC;
	fd = sock("bind.unspec_addr", SOCK_STREAM);
	CALL(bind(fd, SA(&ss), F->len));
	line("bind.unspec_addr", NULL);
	close(fd);
	/* family 12345 */
	ss = F->addr;
	ss.ss_family = 12345;
	fd = sock("bind.family12345", SOCK_STREAM);
	CALL(bind(fd, SA(&ss), F->len));
	line("bind.family12345", NULL);
	close(fd);
	/* an AF_UNIX address: short (4 bytes), and a whole sockaddr_un */
	fd = sock("bind.unix_short", SOCK_STREAM);
	CALL(bind(fd, SA(&un), offsetof(struct sockaddr_un, sun_path) + 2));
	line("bind.unix_short", "%s", file_u());
	close(fd);
	fd = sock("bind.unix_full", SOCK_STREAM);
	CALL(bind(fd, SA(&un), sizeof(un)));
	line("bind.unix_full", "%s", file_u());
	close(fd);
	fd = sock("bind.unix_full_udp", SOCK_DGRAM);
	CALL(bind(fd, SA(&un), sizeof(un)));
	line("bind.unix_full_udp", "%s", file_u());
	close(fd);

	/* addresses */
	fd = sock("bind.nonlocal", SOCK_STREAM);
	CALL(bind(fd, SA(&F->nonlocal), F->len));
	line("bind.nonlocal", NULL);
	close(fd);
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)F->family;
	fd = sock("bind.any", SOCK_STREAM);
	CALL(bind(fd, SA(&ss), F->len));
	line("bind.any", NULL);
	close(fd);
	ss = with_port(&F->addr, 1);
	fd = sock("bind.privport", SOCK_STREAM);
	CALL(bind(fd, SA(&ss), F->len));
	line("bind.privport", NULL);
	close(fd);
	if (F->family == AF_INET6) {
		fd = sock("bind.v4mapped", SOCK_STREAM);
		CALL(bind(fd, SA(&F->mapped), F->len));
		line("bind.v4mapped", NULL);
		close(fd);
		fd = sock("bind.v4mapped_v6only", SOCK_STREAM);
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		CALL(bind(fd, SA(&F->mapped), F->len));
		line("bind.v4mapped_v6only", NULL);
		close(fd);
	}

	/* descriptors that are not (inet) sockets */
	fd = closed_fd();
	CALL(bind(fd, SA(&F->addr), F->len));
	line("bind.closed", NULL);
	CALL(bind(fd, NULL, F->len));
	line("bind.closed_null", NULL);
	CALL(bind(-1, SA(&F->addr), F->len));
	line("bind.fd_neg", NULL);
	CALL(bind(pipe_r, SA(&F->addr), F->len));
	line("bind.pipe", NULL);
	CALL(bind(pipe_r, NULL, F->len));
	line("bind.pipe_null", NULL);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CALL(bind(fd, SA(&F->addr), F->len));
	line("bind.unix_socket", NULL);
	close(fd);
}

static void cases_connect(void)
{
	struct sockaddr_storage big[2], ss, lss;
	struct sockaddr_un un = unix_addr();
	int fd, l;
	int one = 1;
	unsigned short p;

	l = listener("connect", &lss);
	p = free_port("connect", SOCK_STREAM);

	fd = sock("connect.null", SOCK_STREAM);
	CALL(connect(fd, NULL, F->len));
	line("connect.null", NULL);
	close(fd);
	fd = sock("connect.unmapped", SOCK_STREAM);
	CALL(connect(fd, BAD, F->len));
	line("connect.unmapped", NULL);
	close(fd);
	fd = sock("connect.null_len0", SOCK_STREAM);
	CALL(connect(fd, NULL, 0));
	line("connect.null_len0", NULL);
	close(fd);
	fd = sock("connect.len0", SOCK_STREAM);
	CALL(connect(fd, SA(&lss), 0));
	line("connect.len0", NULL);
	close(fd);
	fd = sock("connect.len1", SOCK_STREAM);
	CALL(connect(fd, SA(&lss), 1));
	line("connect.len1", NULL);
	close(fd);
	fd = sock("connect.len_short", SOCK_STREAM);
	CALL(connect(fd, SA(&lss), F->len - 1));
	line("connect.len_short", NULL);
	close(fd);
	fd = sock("connect.len_neg", SOCK_STREAM);
	CALL(connect(fd, SA(&lss), (socklen_t)-1));
	line("connect.len_neg", NULL);
	close(fd);
	memset(big, 0, sizeof(big));
	memcpy(big, &lss, F->len);
	fd = sock("connect.len200", SOCK_STREAM);
	CALL(connect(fd, SA(big), 200));
	line("connect.len200", NULL);
	close(fd);
	fd = sock("connect.len_storage", SOCK_STREAM);
	CALL(connect(fd, SA(big), sizeof(struct sockaddr_storage)));
	line("connect.len_storage", NULL);
	close(fd);

	ss = with_port(&F->other, p);
	fd = sock("connect.other_family", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), F->olen));
	line("connect.other_family", NULL);
	close(fd);
	fd = sock("connect.other_family_ourlen", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.other_family_ourlen", NULL);
	close(fd);
	ss = lss;
	ss.ss_family = 12345;
	fd = sock("connect.family12345", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.family12345", NULL);
	close(fd);
	fd = sock("connect.unix_full", SOCK_STREAM);
	CALL(connect(fd, SA(&un), sizeof(un)));
	line("connect.unix_full", NULL);
	close(fd);
	fd = sock("connect.unix_short", SOCK_STREAM);
	CALL(connect(fd, SA(&un), offsetof(struct sockaddr_un, sun_path) + 2));
	line("connect.unix_short", NULL);
	close(fd);

	ss = with_port(&F->addr, p);
	fd = sock("connect.refused", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.refused", NULL);
	/* after a refused connect, the socket may connect again */
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.after_refused", NULL);
	close(fd);
	fd = sock("connect.port0", SOCK_STREAM);
	ss = with_port(&F->addr, 0);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.port0", NULL);
	close(fd);
	memset(&ss, 0, sizeof(ss));
	fd = sock("connect.unspec", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.unspec", NULL);
	close(fd);
	fd = sock("connect.unspec_len2", SOCK_STREAM);
	CALL(connect(fd, SA(&ss), 2));
	line("connect.unspec_len2", NULL);
	close(fd);

	fd = sock("connect.ok", SOCK_STREAM);
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.ok", NULL);
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.again", NULL);
	ss = with_port(&F->addr, p);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.again_elsewhere", NULL);
	memset(&ss, 0, sizeof(ss));
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.unspec_connected", NULL);
	close(fd);
	CALL(connect(l, SA(&lss), F->len));
	line("connect.listening", NULL);

	/* nonblocking: the kernel says EINPROGRESS, even on the loopback;
	 * once connected, the next connect() says 0, the one after EISCONN */
	fd = socket(F->family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.nonblock", NULL);
	{
		struct pollfd pf = {fd, POLLOUT, 0};

		poll(&pf, 1, 5000);
	}
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.nonblock_again", NULL);
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.nonblock_third", NULL);
	close(fd);

	/* UDP */
	ss = with_port(&F->addr, p);
	fd = sock("connect.udp", SOCK_DGRAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.udp", NULL);
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.udp_again", NULL);
	memset(&ss, 0, sizeof(ss));
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.udp_unspec", NULL);
	close(fd);
	fd = sock("connect.udp_len0", SOCK_DGRAM);
	CALL(connect(fd, SA(&lss), 0));
	line("connect.udp_len0", NULL);
	CALL(connect(fd, SA(&lss), 1));
	line("connect.udp_len1", NULL);
	CALL(connect(fd, SA(&lss), F->len - 1));
	line("connect.udp_len_short", NULL);
	CALL(connect(fd, NULL, F->len));
	line("connect.udp_null", NULL);
	CALL(connect(fd, SA(&un), sizeof(un)));
	line("connect.udp_unix_full", NULL);
	ss = with_port(&F->other, p);
	CALL(connect(fd, SA(&ss), F->olen));
	line("connect.udp_other_family", NULL);
	ss = with_port(&F->addr, 0);
	CALL(connect(fd, SA(&ss), F->len));
	line("connect.udp_port0", NULL);
	close(fd);
	if (F->family == AF_INET6) {
		ss = with_port(&F->mapped, p);
		fd = sock("connect.udp_v4mapped", SOCK_DGRAM);
		CALL(connect(fd, SA(&ss), F->len));
		line("connect.udp_v4mapped", NULL);
		close(fd);
		fd = sock("connect.udp_v4mapped_v6only", SOCK_DGRAM);
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		CALL(connect(fd, SA(&ss), F->len));
		line("connect.udp_v4mapped_v6only", NULL);
		close(fd);
	}

	fd = closed_fd();
	CALL(connect(fd, SA(&lss), F->len));
	line("connect.closed", NULL);
	CALL(connect(pipe_r, SA(&lss), F->len));
	line("connect.pipe", NULL);
	close(l);
}

static void cases_listen(void)
{
	int fd, c, a;

	fd = bound("listen.udp", SOCK_DGRAM);
	CALL(listen(fd, 5));
	line("listen.udp", NULL);
	close(fd);
	fd = sock("listen.unbound", SOCK_STREAM);
	CALL(listen(fd, 5));
	line("listen.unbound", "port=%s", port_of(fd) != 0 ? "nonzero" : "0");
	close(fd);
	fd = bound("listen.backlog_neg", SOCK_STREAM);
	CALL(listen(fd, -1));
	line("listen.backlog_neg", NULL);
	CALL(listen(fd, 5));
	line("listen.again", NULL);
	close(fd);
	if (pair("listen.connected", &c, &a) == 0) {
		CALL(listen(c, 5));
		line("listen.connected", NULL);
		CALL(listen(a, 5));
		line("listen.accepted", NULL);
		close(c);
		close(a);
	}
	CALL(listen(closed_fd(), 5));
	line("listen.closed", NULL);
	CALL(listen(pipe_r, 5));
	line("listen.pipe", NULL);
}

static void cases_accept(void)
{
	struct sockaddr_storage lss, ss;
	socklen_t len;
	int fd, l;
	volatile int c; /* (across sigsetjmp) */

	fd = sock("accept.unbound", SOCK_STREAM);
	CALL(accept(fd, NULL, NULL));
	fdline("accept.unbound");
	close(fd);
	fd = bound("accept.not_listening", SOCK_STREAM);
	CALL(accept(fd, NULL, NULL));
	fdline("accept.not_listening");
	close(fd);
	fd = bound("accept.udp", SOCK_DGRAM);
	CALL(accept(fd, NULL, NULL));
	fdline("accept.udp");
	close(fd);
	fd = sock("accept.udp_unbound", SOCK_DGRAM);
	CALL(accept(fd, NULL, NULL));
	fdline("accept.udp_unbound");
	close(fd);

	l = listener("accept", &lss);
	if (l < 0) {
		return;
	}
	CALL(accept4(l, NULL, NULL, 0x1));
	fdline("accept4.badflags");
	CALL(accept4(l, NULL, NULL, -1));
	fdline("accept4.badflags_all");
	fcntl(l, F_SETFL, O_NONBLOCK);
	CALL(accept(l, NULL, NULL));
	fdline("accept.nonblock_empty");

	/* with a connection waiting: the cases that fail before or after
	 * taking it, and the accept after them (nonblocking: EAGAIN if the
	 * failed call took it) */
#define PENDING(name, expr)                                                    \
	do {                                                                   \
		c = client(name, &lss);                                        \
		if (c < 0) {                                                   \
			break;                                                 \
		}                                                              \
		usleep(20000);                                                 \
		CALL(expr);                                                    \
		fdline(name);                                                  \
		CALL(accept(l, NULL, NULL));                                   \
		fdline(name "_after");                                         \
		close(c);                                                      \
	} while (0)

	PENDING("accept4.badflags_pending", accept4(l, NULL, NULL, 0x1));
	len = sizeof(ss);
	PENDING("accept.badlenp", accept(l, SA(&ss), BAD));
	len = sizeof(ss);
	PENDING("accept.badaddr", accept(l, BAD, &len));
	len = (socklen_t)-1;
	PENDING("accept.len_neg", accept(l, SA(&ss), &len));
	len = sizeof(ss);
	PENDING("accept.null_lenp", accept(l, SA(&ss), NULL));
	len = sizeof(ss);
	PENDING("accept.null_addr", accept(l, NULL, &len));

	c = client("accept.len2", &lss);
	if (c >= 0) {
		usleep(20000);
		memset(&ss, 0xaa, sizeof(ss));
		len = 2;
		CALL(accept(l, SA(&ss), &len));
		if (g_rc >= 0) {
			close((int)g_rc);
		}
		fd_line("accept.len2", "len=%u fam=%d rest=%s", (unsigned)len,
			(int)ss.ss_family,
			((unsigned char *)&ss)[2] == 0xaa ? "untouched"
							  : "written");
		close(c);
	}
	c = client("accept.len0", &lss);
	if (c >= 0) {
		usleep(20000);
		memset(&ss, 0xaa, sizeof(ss));
		len = 0;
		CALL(accept(l, SA(&ss), &len));
		if (g_rc >= 0) {
			close((int)g_rc);
		}
		fd_line("accept.len0", "len=%u untouched=%s", (unsigned)len,
			((unsigned char *)&ss)[0] == 0xaa ? "yes" : "no");
		close(c);
	}
	c = client("accept.ok", &lss);
	if (c >= 0) {
		usleep(20000);
		len = sizeof(ss);
		CALL(accept(l, SA(&ss), &len));
		if (g_rc >= 0) {
			close((int)g_rc);
		}
		fd_line("accept.ok", "len=%u fam=%d", (unsigned)len,
			(int)ss.ss_family);
		close(c);
	}
	c = client("accept4.flags", &lss);
	if (c >= 0) {
		usleep(20000);
		CALL(accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
		fdline("accept4.flags");
		close(c);
	}
	close(l);
	CALL(accept(closed_fd(), NULL, NULL));
	fdline("accept.closed");
	CALL(accept(pipe_r, NULL, NULL));
	fdline("accept.pipe");
}

/* getsockname or getpeername of `fd` with the address buffer filled with
 * 0xaa and *len = `len0` first: "len=N fam=N rest=untouched|written" */
static void name_case(const char *name, bool peer, int fd, socklen_t len0)
{
	struct sockaddr_storage ss;
	socklen_t len = len0;
	unsigned char *b = (unsigned char *)&ss;
	size_t first = len0 < sizeof(ss) ? len0 : sizeof(ss);

	memset(&ss, 0xaa, sizeof(ss));
	CALL(peer ? getpeername(fd, SA(&ss), &len)
		  : getsockname(fd, SA(&ss), &len));
	if (g_rc < 0) {
		line(name, NULL);
		return;
	}
	line(name, "len=%u fam=%d rest=%s", (unsigned)len,
	     len0 >= 2 ? (int)ss.ss_family : -1,
	     first < sizeof(ss) && b[first] == 0xaa ? "untouched"
	     : first < sizeof(ss)		    ? "written"
						    : "-");
}

static void cases_names(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, c, a, u;

	fd = sock("getsockname.unbound", SOCK_STREAM);
	name_case("getsockname.unbound", false, fd, sizeof(ss));
	close(fd);
	fd = sock("getsockname.udp_unbound", SOCK_DGRAM);
	name_case("getsockname.udp_unbound", false, fd, sizeof(ss));
	close(fd);

	fd = bound("getsockname", SOCK_STREAM);
	name_case("getsockname.ok", false, fd, sizeof(ss));
	name_case("getsockname.len0", false, fd, 0);
	name_case("getsockname.len2", false, fd, 2);
	name_case("getsockname.len_short", false, fd, F->len - 1);
	name_case("getsockname.len200", false, fd, 200);
	name_case("getsockname.len_neg", false, fd, (socklen_t)-1);
	len = sizeof(ss);
	CALL(getsockname(fd, NULL, &len));
	line("getsockname.null_addr", "len=%u", (unsigned)len);
	len = 0;
	CALL(getsockname(fd, NULL, &len));
	line("getsockname.null_addr_len0", "len=%u", (unsigned)len);
	CALL(getsockname(fd, NULL, NULL));
	line("getsockname.null_both", NULL);
	CALL(getsockname(fd, SA(&ss), NULL));
	line("getsockname.null_lenp", NULL);
	CALL(getsockname(fd, SA(&ss), BAD));
	line("getsockname.badlenp", NULL);
	len = sizeof(ss);
	CALL(getsockname(fd, BAD, &len));
	line("getsockname.badaddr", NULL);
	len = 0;
	CALL(getsockname(fd, BAD, &len));
	line("getsockname.badaddr_len0", "len=%u", (unsigned)len);

	name_case("getpeername.unconnected", true, fd, sizeof(ss));
	CALL(getpeername(fd, NULL, NULL));
	line("getpeername.unconnected_null", NULL);
	close(fd);
	fd = listener("getpeername.listening", &ss);
	name_case("getpeername.listening", true, fd, sizeof(ss));
	close(fd);
	if (pair("getpeername", &c, &a) == 0) {
		name_case("getpeername.ok", true, c, sizeof(ss));
		name_case("getpeername.accepted", true, a, sizeof(ss));
		name_case("getsockname.accepted", false, a, sizeof(ss));
		name_case("getpeername.len0", true, c, 0);
		name_case("getpeername.len2", true, c, 2);
		name_case("getpeername.len_neg", true, c, (socklen_t)-1);
		len = sizeof(ss);
		CALL(getpeername(c, NULL, &len));
		line("getpeername.null_addr", "len=%u", (unsigned)len);
		len = 0;
		CALL(getpeername(c, NULL, &len));
		line("getpeername.null_addr_len0", "len=%u", (unsigned)len);
		CALL(getpeername(c, SA(&ss), BAD));
		line("getpeername.badlenp", NULL);
		len = sizeof(ss);
		CALL(getpeername(c, BAD, &len));
		line("getpeername.badaddr", NULL);
		/* the peer gone: still its name (the kernel keeps it) */
		close(a);
		usleep(20000);
		name_case("getpeername.peer_closed", true, c, sizeof(ss));
		close(c);
	}
	u = sock("getpeername.udp", SOCK_DGRAM);
	name_case("getpeername.udp_unconnected", true, u, sizeof(ss));
	ss = with_port(&F->addr, 9);
	connect(u, SA(&ss), F->len);
	name_case("getpeername.udp_connected", true, u, sizeof(ss));
	name_case("getsockname.udp_connected", false, u, sizeof(ss));
	close(u);

	fd = closed_fd();
	len = sizeof(ss);
	CALL(getsockname(fd, SA(&ss), &len));
	line("getsockname.closed", NULL);
	CALL(getpeername(fd, SA(&ss), &len));
	line("getpeername.closed", NULL);
	CALL(getsockname(pipe_r, SA(&ss), &len));
	line("getsockname.pipe", NULL);
	CALL(getpeername(pipe_r, SA(&ss), &len));
	line("getpeername.pipe", NULL);
}

/* getsockopt of an int: "val=N len=N" */
static void gopt(const char *name, int fd, int level, int opt, socklen_t len0)
{
	int v[4] = {-7, -7, -7, -7};
	socklen_t len = len0;

	CALL(getsockopt(fd, level, opt, v, &len));
	if (g_rc < 0) {
		line(name, NULL);
	} else if (len0 >= sizeof(int)) {
		line(name, "val=%d len=%u", v[0], (unsigned)len);
	} else {
		line(name, "len=%u", (unsigned)len);
	}
}

/* getsockopt whose value is not compared (the unix socket's differs) */
static void gopt_len(const char *name, int fd, int level, int opt)
{
	int v[4];
	socklen_t len = sizeof(v);

	CALL(getsockopt(fd, level, opt, v, &len));
	line(name, g_rc < 0 ? NULL : "len=%u", (unsigned)len);
}

static void cases_getsockopt(void)
{
	struct sockaddr_storage lss;
	int big[64];
	socklen_t len;
	int ip = F->family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int fd, u, l, c;
	unsigned short p;

	fd = sock("getsockopt", SOCK_STREAM);
	u = sock("getsockopt", SOCK_DGRAM);
	gopt("getsockopt.type", fd, SOL_SOCKET, SO_TYPE, sizeof(int));
	gopt("getsockopt.type_udp", u, SOL_SOCKET, SO_TYPE, sizeof(int));
	gopt("getsockopt.domain", fd, SOL_SOCKET, SO_DOMAIN, sizeof(int));
	gopt("getsockopt.domain_udp", u, SOL_SOCKET, SO_DOMAIN, sizeof(int));
	gopt("getsockopt.protocol", fd, SOL_SOCKET, SO_PROTOCOL, sizeof(int));
	gopt("getsockopt.protocol_udp", u, SOL_SOCKET, SO_PROTOCOL,
	     sizeof(int));
	gopt("getsockopt.error", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	gopt("getsockopt.acceptconn", fd, SOL_SOCKET, SO_ACCEPTCONN,
	     sizeof(int));
	gopt("getsockopt.acceptconn_udp", u, SOL_SOCKET, SO_ACCEPTCONN,
	     sizeof(int));
	gopt("getsockopt.reuseaddr", fd, SOL_SOCKET, SO_REUSEADDR, sizeof(int));
	gopt("getsockopt.keepalive", fd, SOL_SOCKET, SO_KEEPALIVE, sizeof(int));
	gopt("getsockopt.broadcast_udp", u, SOL_SOCKET, SO_BROADCAST,
	     sizeof(int));
	gopt_len("getsockopt.rcvbuf", fd, SOL_SOCKET, SO_RCVBUF);
	gopt("getsockopt.type_len0", fd, SOL_SOCKET, SO_TYPE, 0);
	gopt("getsockopt.type_len2", fd, SOL_SOCKET, SO_TYPE, 2);
	gopt("getsockopt.type_len100", fd, SOL_SOCKET, SO_TYPE, 100);
	gopt("getsockopt.type_len_neg", fd, SOL_SOCKET, SO_TYPE, (socklen_t)-1);
	len = sizeof(int);
	CALL(getsockopt(fd, SOL_SOCKET, SO_TYPE, NULL, &len));
	line("getsockopt.type_null_val", "len=%u", (unsigned)len);
	len = 0;
	CALL(getsockopt(fd, SOL_SOCKET, SO_TYPE, NULL, &len));
	line("getsockopt.type_null_val_len0", "len=%u", (unsigned)len);
	len = sizeof(int);
	CALL(getsockopt(fd, SOL_SOCKET, SO_TYPE, BAD, &len));
	line("getsockopt.type_badval", NULL);
	CALL(getsockopt(fd, SOL_SOCKET, SO_TYPE, big, NULL));
	line("getsockopt.type_null_lenp", NULL);
	CALL(getsockopt(fd, SOL_SOCKET, SO_TYPE, big, BAD));
	line("getsockopt.type_badlenp", NULL);
	gopt("getsockopt.level12345", fd, 12345, 1, sizeof(int));
	gopt("getsockopt.level12345_udp", u, 12345, 1, sizeof(int));
	gopt("getsockopt.sol_socket_12345", fd, SOL_SOCKET, 12345, sizeof(int));
	gopt("getsockopt.tcp_nodelay", fd, IPPROTO_TCP, TCP_NODELAY,
	     sizeof(int));
	gopt("getsockopt.tcp_12345", fd, IPPROTO_TCP, 12345, sizeof(int));
	gopt("getsockopt.tcp_nodelay_udp", u, IPPROTO_TCP, TCP_NODELAY,
	     sizeof(int));
	gopt("getsockopt.udp_cork_tcp", fd, IPPROTO_UDP, 1 /* UDP_CORK */,
	     sizeof(int));
	gopt("getsockopt.ip_12345", fd, ip, 12345, sizeof(int));
	gopt("getsockopt.ip_12345_udp", u, ip, 12345, sizeof(int));
	gopt("getsockopt.v6only", fd, IPPROTO_IPV6, IPV6_V6ONLY, sizeof(int));
	gopt("getsockopt.ip_tos", fd, IPPROTO_IP, IP_TOS, sizeof(int));
	close(u);

	/* listening; a refused nonblocking connect's SO_ERROR, taken once */
	l = listener("getsockopt.acceptconn_listening", &lss);
	gopt("getsockopt.acceptconn_listening", l, SOL_SOCKET, SO_ACCEPTCONN,
	     sizeof(int));
	close(l);
	p = free_port("getsockopt.error_refused", SOCK_STREAM);
	lss = with_port(&F->addr, p);
	c = socket(F->family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (connect(c, SA(&lss), F->len) != 0 && errno == EINPROGRESS) {
		struct pollfd pf = {c, POLLOUT, 0};

		poll(&pf, 1, 5000);
	}
	gopt("getsockopt.error_refused", c, SOL_SOCKET, SO_ERROR, sizeof(int));
	gopt("getsockopt.error_refused_again", c, SOL_SOCKET, SO_ERROR,
	     sizeof(int));
	close(c);
	close(fd);

	len = sizeof(int);
	CALL(getsockopt(closed_fd(), SOL_SOCKET, SO_TYPE, big, &len));
	line("getsockopt.closed", NULL);
	CALL(getsockopt(pipe_r, SOL_SOCKET, SO_TYPE, big, &len));
	line("getsockopt.pipe", NULL);
}

static void sopt(const char *name, int fd, int level, int opt, const void *v,
		 socklen_t len)
{
	CALL(setsockopt(fd, level, opt, v, len));
	line(name, NULL);
}

static void cases_setsockopt(void)
{
	int one = 1, big[4096];
	int ip = F->family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int fd, u;

	memset(big, 0, sizeof(big));
	big[0] = 1;
	fd = sock("setsockopt", SOCK_STREAM);
	u = sock("setsockopt", SOCK_DGRAM);
	sopt("setsockopt.reuseaddr", fd, SOL_SOCKET, SO_REUSEADDR, &one,
	     sizeof(one));
	gopt("setsockopt.reuseaddr_get", fd, SOL_SOCKET, SO_REUSEADDR,
	     sizeof(int));
	sopt("setsockopt.null_val", fd, SOL_SOCKET, SO_REUSEADDR, NULL,
	     sizeof(int));
	sopt("setsockopt.null_val_len0", fd, SOL_SOCKET, SO_REUSEADDR, NULL, 0);
	sopt("setsockopt.badval", fd, SOL_SOCKET, SO_REUSEADDR, BAD,
	     sizeof(int));
	sopt("setsockopt.len_neg", fd, SOL_SOCKET, SO_REUSEADDR, &one,
	     (socklen_t)-1);
	sopt("setsockopt.len0", fd, SOL_SOCKET, SO_REUSEADDR, &one, 0);
	sopt("setsockopt.len2", fd, SOL_SOCKET, SO_REUSEADDR, &one, 2);
	sopt("setsockopt.len_big", fd, SOL_SOCKET, SO_REUSEADDR, big,
	     sizeof(big));
	sopt("setsockopt.type", fd, SOL_SOCKET, SO_TYPE, &one, sizeof(one));
	sopt("setsockopt.level12345", fd, 12345, 1, &one, sizeof(one));
	sopt("setsockopt.level12345_udp", u, 12345, 1, &one, sizeof(one));
	sopt("setsockopt.sol_socket_12345", fd, SOL_SOCKET, 12345, &one,
	     sizeof(one));
	sopt("setsockopt.tcp_nodelay", fd, IPPROTO_TCP, TCP_NODELAY, &one,
	     sizeof(one));
	gopt("setsockopt.tcp_nodelay_get", fd, IPPROTO_TCP, TCP_NODELAY,
	     sizeof(int));
	sopt("setsockopt.tcp_nodelay_len2", fd, IPPROTO_TCP, TCP_NODELAY, &one,
	     2);
	sopt("setsockopt.tcp_nodelay_null", fd, IPPROTO_TCP, TCP_NODELAY, NULL,
	     sizeof(int));
	sopt("setsockopt.tcp_nodelay_udp", u, IPPROTO_TCP, TCP_NODELAY, &one,
	     sizeof(one));
	sopt("setsockopt.tcp_12345", fd, IPPROTO_TCP, 12345, &one, sizeof(one));
	sopt("setsockopt.ip_12345", fd, ip, 12345, &one, sizeof(one));
	sopt("setsockopt.ip_12345_udp", u, ip, 12345, &one, sizeof(one));
	sopt("setsockopt.v6only", fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
	     sizeof(one));
	sopt("setsockopt.broadcast_udp", u, SOL_SOCKET, SO_BROADCAST, &one,
	     sizeof(one));
	sopt("setsockopt.rcvtimeo_short", u, SOL_SOCKET, SO_RCVTIMEO, &one,
	     sizeof(one));
	close(fd);
	if (F->family == AF_INET6) {
		fd = bound("setsockopt.v6only_bound", SOCK_STREAM);
		sopt("setsockopt.v6only_bound", fd, IPPROTO_IPV6, IPV6_V6ONLY,
		     &one, sizeof(one));
		close(fd);
	}
	close(u);
	sopt("setsockopt.closed", closed_fd(), SOL_SOCKET, SO_REUSEADDR, &one,
	     sizeof(one));
	sopt("setsockopt.pipe", pipe_r, SOL_SOCKET, SO_REUSEADDR, &one,
	     sizeof(one));
}

static void cases_sendto(void)
{
	static char huge[70000];
	struct sockaddr_storage big[2], ss, rss;
	struct sockaddr_un un = unix_addr();
	int fd, r, c, a;
	unsigned short p;

	r = udp_with_data("sendto", 0, &rss);
	p = free_port("sendto", SOCK_DGRAM);
	fd = sock("sendto", SOCK_DGRAM);

	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), F->len));
	line("sendto.ok", NULL);
	ss = with_port(&F->addr, p);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.noone", NULL);
	usleep(20000);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.noone_again", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, NULL, F->len));
	line("sendto.null_addr", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, BAD, F->len));
	line("sendto.unmapped", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), 0));
	line("sendto.len0", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), 1));
	line("sendto.len1", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), F->len - 1));
	line("sendto.len_short", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), (socklen_t)-1));
	line("sendto.len_neg", NULL);
	memset(big, 0, sizeof(big));
	memcpy(big, &rss, F->len);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(big), 200));
	line("sendto.len200", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(big),
		    sizeof(struct sockaddr_storage)));
	line("sendto.len_storage", NULL);
	ss = with_port(&F->other, p);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->olen));
	line("sendto.other_family", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.other_family_ourlen", NULL);
	ss = rss;
	ss.ss_family = AF_UNSPEC;
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.unspec", NULL);
	ss.ss_family = 12345;
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.family12345", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&un), sizeof(un)));
	line("sendto.unix_full", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&un),
		    offsetof(struct sockaddr_un, sun_path) + 2));
	line("sendto.unix_short", NULL);
	ss = with_port(&F->addr, 0);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.port0", NULL);
	CALL(sendto(fd, BAD, MSG_LEN, 0, SA(&rss), F->len));
	line("sendto.badbuf", NULL);
	CALL(sendto(fd, MSG, 0, 0, SA(&rss), F->len));
	line("sendto.empty", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, MSG_OOB, SA(&rss), F->len));
	line("sendto.oob", NULL);
	CALL(sendto(fd, huge, sizeof(huge), 0, SA(&rss), F->len));
	line("sendto.toobig", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&F->nonlocal), F->len));
	line("sendto.nonlocal_port0", NULL);
	close(fd);

	/* connected UDP: another destination */
	fd = sock("sendto.udp_connected", SOCK_DGRAM);
	connect(fd, SA(&rss), F->len);
	ss = with_port(&F->addr, p);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&ss), F->len));
	line("sendto.udp_connected_other", NULL);
	CALL(sendto(fd, MSG, MSG_LEN, 0, SA(&rss), F->len));
	line("sendto.udp_connected_same", NULL);
	close(fd);
	close(r);

	/* TCP */
	fd = sock("sendto.tcp_unconnected", SOCK_STREAM);
	CALL(sendto(fd, MSG, MSG_LEN, MSG_NOSIGNAL, SA(&rss), F->len));
	line("sendto.tcp_unconnected", NULL);
	close(fd);
	if (pair("sendto.tcp_connected", &c, &a) == 0) {
		ss = with_port(&F->addr, p);
		CALL(sendto(c, MSG, MSG_LEN, MSG_NOSIGNAL, SA(&ss), F->len));
		line("sendto.tcp_connected", NULL);
		CALL(sendto(c, MSG, MSG_LEN, MSG_NOSIGNAL, BAD, F->len));
		line("sendto.tcp_connected_unmapped", NULL);
		CALL(sendto(c, MSG, MSG_LEN, MSG_NOSIGNAL, SA(&ss), 0));
		line("sendto.tcp_connected_len0", NULL);
		close(a);
		usleep(20000);
		CALL(sendto(c, MSG, MSG_LEN, MSG_NOSIGNAL, SA(&ss), F->len));
		line("sendto.tcp_peer_closed", NULL);
		usleep(20000);
		CALL(sendto(c, MSG, MSG_LEN, MSG_NOSIGNAL, SA(&ss), F->len));
		line("sendto.tcp_peer_closed_again", NULL);
		close(c);
	}

	CALL(sendto(closed_fd(), MSG, MSG_LEN, 0, SA(&rss), F->len));
	line("sendto.closed", NULL);
	CALL(sendto(pipe_r, MSG, MSG_LEN, 0, SA(&rss), F->len));
	line("sendto.pipe", NULL);
}

static void cases_recvfrom(void)
{
	struct sockaddr_storage ss, lss;
	socklen_t len;
	char buf[64];
	int fd, c, a;

	/* R: a recvfrom() with data waiting; then one with MSG_DONTWAIT
	 * (EAGAIN if the first one took the datagram) */
#define RECV(name, expr)                                                       \
	do {                                                                   \
		fd = udp_with_data(name, 1, NULL);                             \
		if (fd < 0) {                                                  \
			break;                                                 \
		}                                                              \
		CALL(expr);                                                    \
		line(name, "len=%u", (unsigned)len);                           \
		len = sizeof(ss);                                              \
		CALL(recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, SA(&ss),     \
			      &len));                                          \
		line(name "_after", NULL);                                     \
		close(fd);                                                     \
	} while (0)

	len = sizeof(ss);
	RECV("recvfrom.ok", recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	len = sizeof(ss);
	RECV("recvfrom.badbuf",
	     recvfrom(fd, BAD, sizeof(buf), 0, SA(&ss), &len));
	len = sizeof(ss);
	RECV("recvfrom.badlenp",
	     recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), BAD));
	len = sizeof(ss);
	RECV("recvfrom.badaddr", recvfrom(fd, buf, sizeof(buf), 0, BAD, &len));
	len = (socklen_t)-1;
	RECV("recvfrom.len_neg",
	     recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	len = 0;
	RECV("recvfrom.len0", recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	len = 2;
	RECV("recvfrom.len2", recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	len = 200;
	RECV("recvfrom.len200",
	     recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	len = sizeof(ss);
	RECV("recvfrom.null_lenp",
	     recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), NULL));
	len = sizeof(ss);
	RECV("recvfrom.trunc", recvfrom(fd, buf, 2, MSG_TRUNC, SA(&ss), &len));
	len = sizeof(ss);
	RECV("recvfrom.peek",
	     recvfrom(fd, buf, sizeof(buf), MSG_PEEK, SA(&ss), &len));
	len = sizeof(ss);
	RECV("recvfrom.oob",
	     recvfrom(fd, buf, sizeof(buf), MSG_OOB, SA(&ss), &len));

	fd = udp_with_data("recvfrom.empty", 0, NULL);
	len = sizeof(ss);
	CALL(recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, SA(&ss), &len));
	line("recvfrom.empty_nonblock", NULL);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CALL(recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	line("recvfrom.empty_o_nonblock", NULL);
	close(fd);

	/* TCP */
	fd = sock("recvfrom.tcp_unconnected", SOCK_STREAM);
	len = sizeof(ss);
	CALL(recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	line("recvfrom.tcp_unconnected", NULL);
	close(fd);
	fd = listener("recvfrom.tcp_listening", &lss);
	len = sizeof(ss);
	CALL(recvfrom(fd, buf, sizeof(buf), 0, SA(&ss), &len));
	line("recvfrom.tcp_listening", NULL);
	close(fd);
	if (pair("recvfrom.tcp_connected", &c, &a) == 0) {
		(void)!write(a, MSG, MSG_LEN);
		usleep(20000);
		len = sizeof(ss);
		memset(&ss, 0xaa, sizeof(ss));
		CALL(recvfrom(c, buf, sizeof(buf), 0, SA(&ss), &len));
		/* (the kernel writes no address for TCP: len 0) */
		line("recvfrom.tcp_connected", "len=%u", (unsigned)len);
		close(a);
		usleep(20000);
		len = sizeof(ss);
		CALL(recvfrom(c, buf, sizeof(buf), 0, SA(&ss), &len));
		line("recvfrom.tcp_eof", "len=%u", (unsigned)len);
		close(c);
	}
	len = sizeof(ss);
	CALL(recvfrom(closed_fd(), buf, sizeof(buf), 0, SA(&ss), &len));
	line("recvfrom.closed", NULL);
	CALL(recvfrom(pipe_r, buf, sizeof(buf), 0, SA(&ss), &len));
	line("recvfrom.pipe", NULL);
}

/* A connected UDP socket to a port nobody listens on: the ICMP error
 * (port unreachable) is reported by the next call; and one whose peer
 * binds after the connect(). */
static void cases_udp_refused(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[16];
	unsigned short p = free_port("udp_refused", SOCK_DGRAM);
	int fd = sock("udp_refused", SOCK_DGRAM);
	int v = -7, r;

	ss = with_port(&F->addr, p);
	CALL(connect(fd, SA(&ss), F->len));
	line("udp_refused.connect", NULL);
	CALL(send(fd, MSG, MSG_LEN, 0));
	line("udp_refused.send", NULL);
	usleep(50000);
	CALL(send(fd, MSG, MSG_LEN, 0));
	line("udp_refused.send2", NULL);
	CALL(send(fd, MSG, MSG_LEN, 0));
	line("udp_refused.send3", NULL);
	usleep(50000);
	len = sizeof(ss);
	CALL(recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, SA(&ss), &len));
	line("udp_refused.recvfrom_addr", NULL);
	CALL(send(fd, MSG, MSG_LEN, 0));
	line("udp_refused.send4", NULL);
	usleep(50000);
	len = sizeof(v);
	CALL(getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len));
	line("udp_refused.so_error", "val=%d", v);
	CALL(recv(fd, buf, sizeof(buf), MSG_DONTWAIT));
	line("udp_refused.recv_after", NULL);
	close(fd);

	/* the peer binds after the connect(): the next send reaches it */
	p = free_port("udp_late_peer", SOCK_DGRAM);
	ss = with_port(&F->addr, p);
	fd = sock("udp_late_peer", SOCK_DGRAM);
	CALL(connect(fd, SA(&ss), F->len));
	line("udp_late_peer.connect", NULL);
	r = sock("udp_late_peer", SOCK_DGRAM);
	if (bind(r, SA(&ss), F->len) != 0) {
		setup_failed("udp_late_peer.send", "bind");
	} else {
		struct pollfd pf = {r, POLLIN, 0};

		CALL(send(fd, MSG, MSG_LEN, 0));
		line("udp_late_peer.send", NULL);
		poll(&pf, 1, 1000);
		CALL(recv(r, buf, sizeof(buf), MSG_DONTWAIT));
		line("udp_late_peer.received", NULL);
	}
	close(r);
	close(fd);
}

static void cases_msg(void)
{
	struct sockaddr_storage big[2], ss, rss;
	struct iovec iov[2];
	struct msghdr m;
	char buf[64], ctl[64];
	int fd, r;
	unsigned short p;

	r = udp_with_data("sendmsg", 0, &rss);
	p = free_port("sendmsg", SOCK_DGRAM);
	fd = sock("sendmsg", SOCK_DGRAM);
	memset(big, 0, sizeof(big));
	memcpy(big, &rss, F->len);

#define MSGSET(name_, namelen_, iov_, iovlen_)                                 \
	do {                                                                   \
		memset(&m, 0, sizeof(m));                                      \
		iov[0].iov_base = (void *)MSG;                                 \
		iov[0].iov_len = MSG_LEN;                                      \
		m.msg_name = (name_);                                          \
		m.msg_namelen = (namelen_);                                    \
		m.msg_iov = (iov_);                                            \
		m.msg_iovlen = (iovlen_);                                      \
	} while (0)

	MSGSET(&rss, F->len, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.ok", NULL);
	CALL(sendmsg(fd, BAD, 0));
	line("sendmsg.badmsg", NULL);
	MSGSET(BAD, F->len, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.badname", NULL);
	MSGSET(big, 200, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.namelen200", NULL);
	MSGSET(&rss, (socklen_t)-1, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.namelen_neg", NULL);
	MSGSET(&rss, 0, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.namelen0", NULL);
	MSGSET(&rss, 1, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.namelen1", NULL);
	MSGSET(&rss, F->len, BAD, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.badiov", NULL);
	MSGSET(&rss, F->len, iov, 1025);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.iovlen1025", NULL);
	MSGSET(&rss, F->len, iov, 1);
	iov[0].iov_base = BAD;
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.badiovbase", NULL);
	ss = with_port(&F->other, p);
	MSGSET(&ss, F->olen, iov, 1);
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.other_family", NULL);
	MSGSET(&rss, F->len, iov, 1);
	m.msg_control = BAD;
	m.msg_controllen = 32;
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.badcontrol", NULL);
	MSGSET(&rss, F->len, iov, 1);
	memset(ctl, 0, sizeof(ctl));
	m.msg_control = ctl;
	m.msg_controllen = 8;
	CALL(sendmsg(fd, &m, 0));
	line("sendmsg.control_short", NULL);
	close(fd);
	/* drain */
	while (recv(r, buf, sizeof(buf), MSG_DONTWAIT) >= 0) {
	}
	close(r);

	/* recvmsg with a datagram waiting; then one with MSG_DONTWAIT */
#define RMSG(name, namebuf, namelen_, iovp, iovlen_, after)                    \
	do {                                                                   \
		fd = udp_with_data(name, 1, NULL);                             \
		if (fd < 0) {                                                  \
			break;                                                 \
		}                                                              \
		memset(&m, 0, sizeof(m));                                      \
		iov[0].iov_base = buf;                                         \
		iov[0].iov_len = sizeof(buf);                                  \
		m.msg_name = (namebuf);                                        \
		m.msg_namelen = (namelen_);                                    \
		m.msg_iov = (iovp);                                            \
		m.msg_iovlen = (iovlen_);                                      \
		after;                                                         \
		CALL(recvmsg(fd, &m, 0));                                      \
		line(name, "namelen=%u flags=%#x", (unsigned)m.msg_namelen,    \
		     (unsigned)m.msg_flags);                                   \
		memset(&m, 0, sizeof(m));                                      \
		m.msg_name = &ss;                                              \
		m.msg_namelen = sizeof(ss);                                    \
		m.msg_iov = iov;                                               \
		m.msg_iovlen = 1;                                              \
		CALL(recvmsg(fd, &m, MSG_DONTWAIT));                           \
		line(name "_after", NULL);                                     \
		close(fd);                                                     \
	} while (0)

	RMSG("recvmsg.ok", &ss, sizeof(ss), iov, 1, (void)0);
	RMSG("recvmsg.namelen0", &ss, 0, iov, 1, (void)0);
	RMSG("recvmsg.namelen2", &ss, 2, iov, 1, (void)0);
	RMSG("recvmsg.namelen200", big, 200, iov, 1, (void)0);
	RMSG("recvmsg.namelen_neg", &ss, (socklen_t)-1, iov, 1, (void)0);
	RMSG("recvmsg.badname", BAD, sizeof(ss), iov, 1, (void)0);
	RMSG("recvmsg.badiov", &ss, sizeof(ss), BAD, 1, (void)0);
	RMSG("recvmsg.iovlen1025", &ss, sizeof(ss), iov, 1025, (void)0);
	RMSG("recvmsg.badiovbase", &ss, sizeof(ss), iov, 1,
	     iov[0].iov_base = BAD);
	RMSG("recvmsg.trunc", &ss, sizeof(ss), iov, 1, iov[0].iov_len = 2);
	RMSG("recvmsg.control", &ss, sizeof(ss), iov, 1,
	     (m.msg_control = ctl, m.msg_controllen = sizeof(ctl)));
	fd = udp_with_data("recvmsg.badmsg", 1, NULL);
	if (fd >= 0) {
		CALL(recvmsg(fd, BAD, 0));
		line("recvmsg.badmsg", NULL);
		close(fd);
	}
	fd = udp_with_data("recvmsg.empty_nonblock", 0, NULL);
	if (fd >= 0) {
		memset(&m, 0, sizeof(m));
		iov[0].iov_base = buf;
		iov[0].iov_len = sizeof(buf);
		m.msg_name = &ss;
		m.msg_namelen = sizeof(ss);
		m.msg_iov = iov;
		m.msg_iovlen = 1;
		CALL(recvmsg(fd, &m, MSG_DONTWAIT));
		line("recvmsg.empty_nonblock", NULL);
		close(fd);
	}
	memset(&m, 0, sizeof(m));
	m.msg_name = &ss;
	m.msg_namelen = sizeof(ss);
	m.msg_iov = iov;
	m.msg_iovlen = 1;
	CALL(recvmsg(closed_fd(), &m, 0));
	line("recvmsg.closed", NULL);
	CALL(recvmsg(pipe_r, &m, 0));
	line("recvmsg.pipe", NULL);
	CALL(sendmsg(pipe_r, &m, 0));
	line("sendmsg.pipe", NULL);
}

static void cases_mmsg(void)
{
	struct sockaddr_storage rss, from[2];
	struct mmsghdr mm[2];
	struct iovec iov[2];
	char buf[2][16];
	bool sent;
	int fd, r;

	r = udp_with_data("sendmmsg", 0, &rss);
	fd = sock("sendmmsg", SOCK_DGRAM);
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		iov[i].iov_base = (void *)MSG;
		iov[i].iov_len = MSG_LEN;
		mm[i].msg_hdr.msg_name = &rss;
		mm[i].msg_hdr.msg_namelen = F->len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CALL(sendmmsg(fd, mm, 2, 0));
	sent = g_rc > 0;
	line("sendmmsg.ok", "len0=%u len1=%u", mm[0].msg_len, mm[1].msg_len);
	CALL(sendmmsg(fd, BAD, 2, 0));
	line("sendmmsg.badvec", NULL);
	mm[1].msg_hdr.msg_name = BAD;
	CALL(sendmmsg(fd, mm, 2, 0));
	line("sendmmsg.second_badname", NULL);
	CALL(sendmmsg(fd, mm, 0, 0));
	line("sendmmsg.vlen0", NULL);
	if (sent) {
		readable(r);
		usleep(20000);
	}
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		mm[i].msg_hdr.msg_name = &from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CALL(recvmmsg(r, mm, 2, MSG_DONTWAIT, NULL));
	line("recvmmsg.ok", "len0=%u namelen0=%u", mm[0].msg_len,
	     (unsigned)mm[0].msg_hdr.msg_namelen);
	CALL(recvmmsg(r, BAD, 2, MSG_DONTWAIT, NULL));
	line("recvmmsg.badvec", NULL);
	/* a connected socket, no names (glibc's resolver asks its A and
	 * AAAA questions so): the data path */
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		iov[i].iov_base = (void *)MSG;
		iov[i].iov_len = MSG_LEN;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CALL(connect(fd, (struct sockaddr *)&rss, F->len));
	line("sendmmsg.connect", NULL);
	CALL(sendmmsg(fd, mm, 2, 0));
	sent = g_rc > 0;
	line("sendmmsg.connected", "len0=%u len1=%u", mm[0].msg_len,
	     mm[1].msg_len);
	if (sent) {
		readable(r);
		usleep(20000);
	}
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CALL(recvmmsg(r, mm, 2, MSG_DONTWAIT, NULL));
	line("recvmmsg.unnamed", "len0=%u len1=%u", mm[0].msg_len,
	     mm[1].msg_len);
	close(fd);
	close(r);
}

/* ---- main ---------------------------------------------------------------- */

static char workdir[256];

static void run(struct fam *f)
{
	F = f;
	tag = f->tag;
	cases_socket();
	cases_bind();
	cases_connect();
	cases_listen();
	cases_accept();
	cases_names();
	cases_getsockopt();
	cases_setsockopt();
	cases_sendto();
	cases_recvfrom();
	cases_udp_refused();
	cases_msg();
	cases_mmsg();
}

int main(int argc, char **argv)
{
	struct fam v4, v6;
	struct sigaction sa;
	struct sockaddr_in6 *m;
	const char *t = getenv("TMPDIR"), *to = getenv("SUPBAD_TIMEOUT");
	int pfd[2], probe;
	bool supervised;

	if (argc != 3) {
		fprintf(stderr, "usage: supbad ADDR4 ADDR6\n");
		return 2;
	}
	if (to != NULL && atoi(to) > 0) {
		timeout_s = (unsigned)atoi(to);
	}
	memset(&v4, 0, sizeof(v4));
	memset(&v6, 0, sizeof(v6));
	v4.tag = "v4";
	v4.family = AF_INET;
	v4.len = parse(argv[1], AF_INET, &v4.addr);
	v6.tag = "v6";
	v6.family = AF_INET6;
	v6.len = parse(argv[2], AF_INET6, &v6.addr);
	v4.other = v6.addr;
	v4.olen = v6.len;
	v6.other = v4.addr;
	v6.olen = v4.len;
	parse("192.0.2.1", AF_INET, &v4.nonlocal);
	parse("2001:db8::1", AF_INET6, &v6.nonlocal);
	m = (struct sockaddr_in6 *)&v6.mapped;
	m->sin6_family = AF_INET6;
	m->sin6_addr.s6_addr[10] = 0xff;
	m->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&m->sin6_addr.s6_addr[12],
	       &((struct sockaddr_in *)&v4.addr)->sin_addr, 4);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: a hung call fails */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	snprintf(workdir, sizeof(workdir), "%s/supbad.XXXXXX",
		 t != NULL && *t != '\0' ? t : "/tmp");
	if (mkdtemp(workdir) == NULL || chdir(workdir) != 0) {
		perror("supbad: a directory of its own");
		return 1;
	}
	if (pipe(pfd) != 0) {
		perror("supbad: pipe");
		return 1;
	}
	pipe_r = pfd[0];
	probe = socket(AF_INET, SOCK_DGRAM, CWRAP_SUPERVISED_PROBE);
	supervised = probe < 0 && errno == CWRAP_SUPERVISED_ERRNO;
	if (probe >= 0) {
		close(probe);
	}

	printf("supervised: %s\n", supervised ? "yes" : "no");
	run(&v4);
	run(&v6);

	unlink("u");
	if (chdir("/") != 0 || rmdir(workdir) != 0) {
		perror("supbad: removing its directory");
	}
	return 0;
}
