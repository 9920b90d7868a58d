/*
 * socket_wrapper benchmarks: one program, one workload per run.
 *
 *   swrap_net pingpong tcp|unix   1-byte request/response, ns per round trip
 *   swrap_net stream tcp|unix     64 KiB writes, MB/s received
 *   swrap_net connect tcp|unix|unix-bound  connect + accept + close, ns/connection
 *   swrap_net udp udp|unix|unix-path  1-byte datagram ping-pong, ns per round trip
 *   swrap_net readfile            read() of 64 bytes of a regular file, ns/op
 *   swrap_net connect-once        one refused connect, no output (for @spawn)
 *
 * "tcp"/"udp" use AF_INET on 127.0.0.10: real loopback when nothing is
 * preloaded, emulated under socket_wrapper. "unix" is the raw AF_UNIX
 * baseline (a socketpair, or a socket file for connect); "unix-bound" is
 * that connect by a client bound to an abstract name first (what any
 * emulation needs so that the server learns the client's address);
 * "unix-path" is unconnected datagrams between two socket files. The peer is a
 * forked child. Each run lasts about 0.3 s.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "bench_util.h"

#define RUN_NS 300000000ull

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in inet_addr10(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};

	inet_pton(AF_INET, "127.0.0.10", &sin.sin_addr);
	return sin;
}

/* A bound socket on 127.0.0.10 (port chosen by the system). */
static int inet_bound(int type, struct sockaddr_in *out)
{
	struct sockaddr_in sin = inet_addr10();
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, type, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    getsockname(fd, (struct sockaddr *)out, &len) != 0) {
		die("bind");
	}
	return fd;
}

/* A connected stream pair: [0] ours, [1] the child's. */
static void stream_pair(const char *mode, int fds[2])
{
	if (strcmp(mode, "unix") == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
			die("socketpair");
		}
	} else {
		struct sockaddr_in sin;
		int l = inet_bound(SOCK_STREAM, &sin), one = 1;

		if (listen(l, 1) != 0) {
			die("listen");
		}
		fds[0] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fds[0], (struct sockaddr *)&sin, sizeof(sin)) !=
		    0) {
			die("connect");
		}
		fds[1] = accept(l, NULL, NULL);
		if (fds[1] < 0) {
			die("accept");
		}
		setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		close(l);
	}
}

static void pingpong(const char *mode)
{
	int fds[2];
	char c = 'x';
	uint64_t n = 0, t0, t;
	pid_t pid;

	stream_pair(mode, fds);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		while (read(fds[1], &c, 1) == 1 && write(fds[1], &c, 1) == 1) {
		}
		_exit(0);
	}
	close(fds[1]);
	t0 = bench_now_ns();
	do {
		for (int i = 0; i < 1000; i++) {
			if (write(fds[0], &c, 1) != 1 ||
			    read(fds[0], &c, 1) != 1) {
				die("pingpong");
			}
		}
		n += 1000;
		t = bench_now_ns();
	} while (t - t0 < RUN_NS);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	bench_report((double)(t - t0) / (double)n, "ns/op");
}

static void stream(const char *mode)
{
	const size_t chunk = 65536;
	char *buf = malloc(chunk);
	uint64_t total = 0, t0, t;
	int fds[2], p[2];
	pid_t pid;
	ssize_t r;

	memset(buf, 'x', chunk);
	stream_pair(mode, fds);
	if (pipe(p) != 0) {
		die("pipe");
	}
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		close(p[0]);
		t0 = bench_now_ns();
		while (bench_now_ns() - t0 < RUN_NS) {
			if (write(fds[0], buf, chunk) < 0) {
				die("write");
			}
		}
		_exit(0);
	}
	close(fds[0]);
	close(p[1]);
	t0 = bench_now_ns();
	while ((r = read(fds[1], buf, chunk)) > 0) {
		total += (uint64_t)r;
	}
	t = bench_now_ns();
	waitpid(pid, NULL, 0);
	bench_report((double)total / 1e6 / ((double)(t - t0) / 1e9), "MB/s");
	free(buf);
}

static void connect_rate(const char *mode)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char dir[] = "/tmp/swrap-bench-XXXXXX";
	uint64_t n = 0, t0, t;
	int l, family;
	bool bound_client = strcmp(mode, "unix-bound") == 0;

	if (strncmp(mode, "unix", 4) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;

		if (mkdtemp(dir) == NULL) {
			die("mkdtemp");
		}
		memset(un, 0, sizeof(*un));
		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s/T0A0007", dir);
		len = sizeof(*un);
		family = AF_UNIX;
		l = socket(AF_UNIX, SOCK_STREAM, 0);
		if (bind(l, (struct sockaddr *)&ss, len) != 0) {
			die("bind");
		}
	} else {
		l = inet_bound(SOCK_STREAM, (struct sockaddr_in *)&ss);
		len = sizeof(struct sockaddr_in);
		family = AF_INET;
	}
	if (listen(l, 128) != 0) {
		die("listen");
	}
	t0 = bench_now_ns();
	do {
		for (int i = 0; i < 100; i++) {
			int c = socket(family, SOCK_STREAM, 0), s;

			if (bound_client) {
				/* A name for the client, as an emulation
				 * must give one for the server to see. */
				struct sockaddr_un cu = {.sun_family = AF_UNIX};
				int k = snprintf(cu.sun_path + 1,
						 sizeof(cu.sun_path) - 1,
						 "%s/T0A%04X", dir,
						 (unsigned)(n + (uint64_t)i) &
						     0xffffu);

				if (bind(c, (struct sockaddr *)&cu,
					 (socklen_t)(offsetof(struct sockaddr_un,
							      sun_path) +
						     1 + (size_t)k)) != 0) {
					die("bind client");
				}
			}
			if (connect(c, (struct sockaddr *)&ss, len) != 0) {
				die("connect");
			}
			s = accept(l, NULL, NULL);
			if (s < 0) {
				die("accept");
			}
			close(c);
			close(s);
		}
		n += 100;
		t = bench_now_ns();
	} while (t - t0 < RUN_NS);
	close(l);
	if (family == AF_UNIX) {
		unlink(((struct sockaddr_un *)&ss)->sun_path);
		rmdir(dir);
	}
	bench_report((double)(t - t0) / (double)n, "ns/op");
}

static void udp(const char *mode)
{
	struct sockaddr_storage peer;
	socklen_t plen = 0;
	uint64_t n = 0, t0, t;
	int a, b;
	char c = 'x';
	char udir[] = "/tmp/swrap-bench-XXXXXX";
	pid_t pid;

	if (strcmp(mode, "unix") == 0) {
		int fds[2];

		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) != 0) {
			die("socketpair");
		}
		a = fds[0];
		b = fds[1];
	} else if (strcmp(mode, "unix-path") == 0) {
		/* What unconnected UDP is made of under an emulation over
		 * unix sockets: two sockets bound to files, every datagram
		 * addressed by path (the kernel looks the path up on each
		 * send), the sender's name received with each datagram. */
		struct sockaddr_un ua = {.sun_family = AF_UNIX};
		struct sockaddr_un ub = {.sun_family = AF_UNIX};

		if (mkdtemp(udir) == NULL) {
			die("mkdtemp");
		}
		snprintf(ua.sun_path, sizeof(ua.sun_path), "%s/U0A2710", udir);
		snprintf(ub.sun_path, sizeof(ub.sun_path), "%s/U0A2711", udir);
		a = socket(AF_UNIX, SOCK_DGRAM, 0);
		b = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (bind(a, (struct sockaddr *)&ua, sizeof(ua)) != 0 ||
		    bind(b, (struct sockaddr *)&ub, sizeof(ub)) != 0) {
			die("bind");
		}
		memcpy(&peer, &ub, sizeof(ub));
		plen = sizeof(ub);
	} else {
		struct sockaddr_in sa, sb;

		a = inet_bound(SOCK_DGRAM, &sa);
		b = inet_bound(SOCK_DGRAM, &sb);
		memcpy(&peer, &sb, sizeof(sb));
		plen = sizeof(sb);
	}
	pid = fork();
	if (pid == 0) {
		struct sockaddr_storage from;
		socklen_t flen;

		close(a);
		for (;;) {
			flen = sizeof(from);
			if (recvfrom(b, &c, 1, 0, (struct sockaddr *)&from,
				     &flen) != 1 ||
			    c == 'q') {
				break;
			}
			if (sendto(b, &c, 1, 0,
				   flen > 0 ? (struct sockaddr *)&from : NULL,
				   flen) != 1) {
				break;
			}
		}
		_exit(0);
	}
	t0 = bench_now_ns();
	do {
		for (int i = 0; i < 1000; i++) {
			if (sendto(a, &c, 1, 0,
				   plen > 0 ? (struct sockaddr *)&peer : NULL,
				   plen) != 1 ||
			    recvfrom(a, &c, 1, 0, NULL, NULL) != 1) {
				die("udp");
			}
		}
		n += 1000;
		t = bench_now_ns();
	} while (t - t0 < RUN_NS);
	c = 'q';
	sendto(a, &c, 1, 0, plen > 0 ? (struct sockaddr *)&peer : NULL, plen);
	waitpid(pid, NULL, 0);
	if (strcmp(mode, "unix-path") == 0) {
		char path[sizeof(udir) + 16];

		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/U0A271%d", udir, i);
			unlink(path);
		}
		rmdir(udir);
	}
	bench_report((double)(t - t0) / (double)n, "ns/op");
}

static void readfile(void)
{
	char path[] = "/tmp/swrap-bench-file-XXXXXX";
	char buf[4096];
	uint64_t n = 0, t0, t;
	int fd = mkstemp(path);
	int s = socket(AF_INET, SOCK_STREAM, 0); /* the wrapper is in use */

	memset(buf, 'r', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		die("file");
	}
	unlink(path);
	lseek(fd, 0, SEEK_SET);
	t0 = bench_now_ns();
	do {
		for (int i = 0; i < 10000; i++) {
			ssize_t r = read(fd, buf, 64);

			if (r <= 0) {
				lseek(fd, 0, SEEK_SET);
			}
		}
		n += 10000;
		t = bench_now_ns();
	} while (t - t0 < RUN_NS);
	close(fd);
	close(s);
	bench_report((double)(t - t0) / (double)n, "ns/op");
}

/* One refused connect and exit: timed as a whole process (@spawn), it is
 * the start-up of a short-lived client, first binding of libc symbols
 * included. */
static int connect_once(void)
{
	struct sockaddr_in sin = inet_addr10();
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_port = htons(9);
	(void)connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && strcmp(argv[1], "pingpong") == 0) {
		pingpong(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "stream") == 0) {
		stream(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "connect") == 0) {
		connect_rate(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "udp") == 0) {
		udp(argv[2]);
	} else if (argc == 2 && strcmp(argv[1], "connect-once") == 0) {
		return connect_once();
	} else if (argc == 2 && strcmp(argv[1], "readfile") == 0) {
		readfile();
	} else {
		fprintf(stderr,
			"usage: %s pingpong|stream tcp|unix, connect tcp|unix|unix-bound, "
			"udp udp|unix|unix-path, readfile, connect-once\n",
			argv[0]);
		return 2;
	}
	return 0;
}
