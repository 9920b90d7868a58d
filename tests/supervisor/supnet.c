/*
 * supnet: a small TCP/UDP client and server with plain blocking calls,
 * built twice (dynamic: supnet_dyn, and -static: supnet_static) for
 * test_supervised.sh, which runs them under cwrap: the static one's
 * sockets are socket_wrapper's only through the supervisor.
 *
 *   supnet tcp-server ADDR PORT [COUNT]
 *       prints "listening A:P", then for each of COUNT (default 1)
 *       connections, one after another: "peer A:P" (accept's address,
 *       checked against getpeername: exit 3 if they differ), "local A:P"
 *       (getsockname of the accepted socket); echoes the data until EOF.
 *   supnet tcp-client ADDR PORT MSG
 *       prints "local A:P" and "peer A:P", sends MSG, shuts down its
 *       writing side, reads until EOF and prints "echo RECEIVED".
 *   supnet udp-server ADDR PORT [COUNT]
 *       prints "listening A:P", then for each of COUNT datagrams
 *       "from A:P" and sends the datagram back.
 *   supnet udp-client ADDR PORT MSG
 *       sends MSG, receives one datagram: "reply RECEIVED from A:P".
 *   supnet churn ADDR COUNT PROCS
 *       PROCS processes (forked) each make COUNT rounds of: a TCP
 *       listener on ADDR port 0, a client connected to it, the accepted
 *       socket, a byte each way, a UDP socket that sends itself a
 *       datagram, all closed; then "churned COUNT x PROCS" and it waits
 *       for the end of its standard input before exiting (a test looks at
 *       the supervisor meanwhile).
 *
 * ADDR: a numeric IPv4 or IPv6 address; PORT 0 is an ephemeral port. An
 * IPv6 address is printed as [ADDR]:PORT. A call that fails: a message
 * naming it on stderr, exit 1; bad arguments: exit 2. With SUPNET_THREAD
 * set, the command runs in a second thread (the calls then come from a
 * thread that does not lead its process).
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUF_SIZE 65536

static void die(const char *call)
{
	fprintf(stderr, "supnet: %s: %s\n", call, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: supnet tcp-server|udp-server ADDR PORT [COUNT]\n"
			"       supnet tcp-client|udp-client ADDR PORT MSG\n"
			"       supnet churn ADDR COUNT PROCS\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || n > max) {
		fprintf(stderr, "supnet: bad %s '%s'\n", what, s);
		exit(2);
	}
	return n;
}

/* ADDR and PORT into *ss; returns its length. */
static socklen_t parse_addr(const char *addr, const char *port, struct sockaddr_storage *ss)
{
	unsigned short p = (unsigned short)number(port, 65535, "port");

	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in sin;
	memset(&sin, 0, sizeof(sin));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons(p);
		memcpy(ss, &sin, sizeof(sin));
		return sizeof(sin);
	}
	struct sockaddr_in6 sin6;
	memset(&sin6, 0, sizeof(sin6));
	if (inet_pton(AF_INET6, addr, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(p);
		memcpy(ss, &sin6, sizeof(sin6));
		return sizeof(sin6);
	}
	fprintf(stderr, "supnet: bad address '%s' (numeric IPv4 or IPv6)\n", addr);
	exit(2);
}

/* "A:P" or "[A]:P" for an address of len bytes. */
static void format_addr(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t size)
{
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;
		memcpy(&sin, ss, sizeof(sin));
		inet_ntop(AF_INET, &sin.sin_addr, host, sizeof(host));
		snprintf(out, size, "%s:%u", host, (unsigned)ntohs(sin.sin_port));
	} else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;
		memcpy(&sin6, ss, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, host, sizeof(host));
		snprintf(out, size, "[%s]:%u", host, (unsigned)ntohs(sin6.sin6_port));
	} else {
		snprintf(out, size, "(family %d, length %u)", (int)ss->ss_family, (unsigned)len);
	}
}

static void print_line(const char *word, const char *text)
{
	printf("%s %s\n", word, text);
	fflush(stdout);
}

static void print_sockname(int fd, const char *word)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char text[INET6_ADDRSTRLEN + 16];

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		die("getsockname");
	}
	format_addr(&ss, len, text, sizeof(text));
	print_line(word, text);
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			die("write");
		}
		buf += n;
		len -= (size_t)n;
	}
}

static int make_socket(int family, int type)
{
	int fd = socket(family, type, 0);
	if (fd < 0) {
		die("socket");
	}
	return fd;
}

static int tcp_server(const char *addr, const char *port, unsigned long count)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(addr, port, &ss);
	int fd = make_socket(ss.ss_family, SOCK_STREAM);
	int one = 1;
	static char buf[BUF_SIZE];

	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
		die("setsockopt(SO_REUSEADDR)");
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		die("bind");
	}
	if (listen(fd, 16) < 0) {
		die("listen");
	}
	print_sockname(fd, "listening");
	for (unsigned long i = 0; i < count; i++) {
		struct sockaddr_storage from, peer;
		socklen_t from_len = sizeof(from), peer_len = sizeof(peer);
		char from_text[INET6_ADDRSTRLEN + 16], peer_text[INET6_ADDRSTRLEN + 16];
		int c;

		memset(&from, 0, sizeof(from));
		memset(&peer, 0, sizeof(peer));
		do {
			c = accept(fd, (struct sockaddr *)&from, &from_len);
		} while (c < 0 && errno == EINTR);
		if (c < 0) {
			die("accept");
		}
		format_addr(&from, from_len, from_text, sizeof(from_text));
		print_line("peer", from_text);
		if (getpeername(c, (struct sockaddr *)&peer, &peer_len) < 0) {
			die("getpeername");
		}
		format_addr(&peer, peer_len, peer_text, sizeof(peer_text));
		if (strcmp(from_text, peer_text) != 0) {
			fprintf(stderr, "supnet: accept() said the peer is %s, getpeername() %s\n",
				from_text, peer_text);
			exit(3);
		}
		print_sockname(c, "local");
		for (;;) {
			ssize_t n = read(c, buf, sizeof(buf));
			if (n < 0) {
				if (errno == EINTR) {
					continue;
				}
				die("read");
			}
			if (n == 0) {
				break;
			}
			write_all(c, buf, (size_t)n);
		}
		if (close(c) < 0) {
			die("close");
		}
	}
	close(fd);
	return 0;
}

static int tcp_client(const char *addr, const char *port, const char *msg)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(addr, port, &ss);
	int fd = make_socket(ss.ss_family, SOCK_STREAM);
	struct sockaddr_storage peer;
	socklen_t peer_len = sizeof(peer);
	char text[INET6_ADDRSTRLEN + 16];
	char *got = NULL;
	size_t got_len = 0;
	static char buf[BUF_SIZE];

	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		die("connect");
	}
	print_sockname(fd, "local");
	memset(&peer, 0, sizeof(peer));
	if (getpeername(fd, (struct sockaddr *)&peer, &peer_len) < 0) {
		die("getpeername");
	}
	format_addr(&peer, peer_len, text, sizeof(text));
	print_line("peer", text);
	write_all(fd, msg, strlen(msg));
	if (shutdown(fd, SHUT_WR) < 0) {
		die("shutdown");
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			die("read");
		}
		if (n == 0) {
			break;
		}
		char *more = realloc(got, got_len + (size_t)n);
		if (more == NULL) {
			die("realloc");
		}
		got = more;
		memcpy(got + got_len, buf, (size_t)n);
		got_len += (size_t)n;
	}
	close(fd);
	fputs("echo ", stdout);
	if (got_len > 0) {
		fwrite(got, 1, got_len, stdout);
	}
	fputs("\n", stdout);
	fflush(stdout);
	free(got);
	return 0;
}

static int udp_server(const char *addr, const char *port, unsigned long count)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(addr, port, &ss);
	int fd = make_socket(ss.ss_family, SOCK_DGRAM);
	static char buf[BUF_SIZE];

	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		die("bind");
	}
	print_sockname(fd, "listening");
	for (unsigned long i = 0; i < count; i++) {
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		char text[INET6_ADDRSTRLEN + 16];
		ssize_t n;

		memset(&from, 0, sizeof(from));
		do {
			n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			die("recvfrom");
		}
		format_addr(&from, from_len, text, sizeof(text));
		print_line("from", text);
		if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, from_len) < 0) {
			die("sendto");
		}
	}
	close(fd);
	return 0;
}

static int udp_client(const char *addr, const char *port, const char *msg)
{
	struct sockaddr_storage ss, from;
	socklen_t len = parse_addr(addr, port, &ss);
	socklen_t from_len = sizeof(from);
	int fd = make_socket(ss.ss_family, SOCK_DGRAM);
	char text[INET6_ADDRSTRLEN + 16];
	static char buf[BUF_SIZE];
	ssize_t n;

	if (sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&ss, len) < 0) {
		die("sendto");
	}
	memset(&from, 0, sizeof(from));
	do {
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		die("recvfrom");
	}
	format_addr(&from, from_len, text, sizeof(text));
	fputs("reply ", stdout);
	fwrite(buf, 1, (size_t)n, stdout);
	printf(" from %s\n", text);
	fflush(stdout);
	close(fd);
	return 0;
}

/* One round of churn (see the top). */
static void churn_round(const char *addr)
{
	struct sockaddr_storage ss, bound;
	socklen_t len = parse_addr(addr, "0", &ss), blen = sizeof(bound);
	int l = make_socket(ss.ss_family, SOCK_STREAM);
	int c = make_socket(ss.ss_family, SOCK_STREAM);
	int u = make_socket(ss.ss_family, SOCK_DGRAM);
	char b = 'x';
	int a;

	if (bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 4) < 0) {
		die("bind/listen");
	}
	if (getsockname(l, (struct sockaddr *)&bound, &blen) < 0) {
		die("getsockname");
	}
	if (connect(c, (struct sockaddr *)&bound, blen) < 0) {
		die("connect");
	}
	a = accept(l, NULL, NULL);
	if (a < 0 || write(c, &b, 1) != 1 || read(a, &b, 1) != 1 ||
	    write(a, &b, 1) != 1 || read(c, &b, 1) != 1) {
		die("accept/echo");
	}
	blen = sizeof(bound);
	if (bind(u, (struct sockaddr *)&ss, len) < 0 ||
	    getsockname(u, (struct sockaddr *)&bound, &blen) < 0 ||
	    sendto(u, &b, 1, 0, (struct sockaddr *)&bound, blen) != 1 ||
	    recvfrom(u, &b, 1, 0, NULL, NULL) != 1) {
		die("udp to itself");
	}
	close(a);
	close(c);
	close(l);
	close(u);
}

static int churn(const char *addr, unsigned long count, unsigned long procs)
{
	char buf[64];
	int status, failed = 0;

	for (unsigned long p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			die("fork");
		}
		if (pid == 0) {
			for (unsigned long i = 0; i < count; i++) {
				churn_round(addr);
			}
			_exit(0);
		}
	}
	while (wait(&status) > 0) {
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	if (failed) {
		fprintf(stderr, "supnet: a churning process failed\n");
		return 1;
	}
	printf("churned %lu x %lu\n", count, procs);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0) {
	}
	return 0;
}

static int run(int argc, char **argv)
{
	if (argc < 4) {
		usage();
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "tcp-server") == 0 || strcmp(cmd, "udp-server") == 0) {
		if (argc > 5) {
			usage();
		}
		unsigned long count = argc == 5 ? number(argv[4], 1000000, "count") : 1;
		return cmd[0] == 't' ? tcp_server(argv[2], argv[3], count)
				     : udp_server(argv[2], argv[3], count);
	}
	if (strcmp(cmd, "churn") == 0) {
		if (argc != 5) {
			usage();
		}
		return churn(argv[2], number(argv[3], 1000000, "count"),
			     number(argv[4], 1000, "processes"));
	}
	if (strcmp(cmd, "tcp-client") == 0 || strcmp(cmd, "udp-client") == 0) {
		if (argc != 5) {
			usage();
		}
		return cmd[0] == 't' ? tcp_client(argv[2], argv[3], argv[4])
				     : udp_client(argv[2], argv[3], argv[4]);
	}
	usage();
	return 2;
}

static int thread_argc;
static char **thread_argv;
static int thread_status;

static void *thread_main(void *arg)
{
	thread_status = run(thread_argc, thread_argv);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (getenv("SUPNET_THREAD") == NULL) {
		return run(argc, argv);
	}
	thread_argc = argc;
	thread_argv = argv;
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 ||
	    pthread_join(t, NULL) != 0) {
		fprintf(stderr, "supnet: pthread_create failed\n");
		return 1;
	}
	return thread_status;
}
