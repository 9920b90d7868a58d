/*
 * swrap_pcap_bench: TCP stream throughput and TCP/UDP ping-pong between a
 * forked server on 127.0.0.10 and the client, plain socket code: run
 * natively it uses loopback, preloaded it uses the emulated sockets (the
 * workloads turn SOCKET_WRAPPER_PCAP_FILE on, so every packet is captured).
 *
 *   swrap_pcap_bench stream BYTES       -> MB/s
 *   swrap_pcap_bench pingpong ROUNDS    -> us/op (1-byte TCP round trip)
 *   swrap_pcap_bench udp-pingpong ROUNDS -> us/op (1-byte UDP round trip)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define CHUNK (64 * 1024)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in server_addr(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = inet_addr("127.0.0.10");
	return a;
}

static int full_read(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0) {
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void serve_tcp(int ls, int stream)
{
	static char buf[CHUNK];
	int s = accept(ls, NULL, NULL);
	int one = 1;
	ssize_t n;

	if (s < 0) {
		die("accept");
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (stream) {
		while ((n = read(s, buf, sizeof(buf))) > 0) {
		}
		if (write(s, "k", 1) != 1) {
			die("write");
		}
	} else {
		while ((n = read(s, buf, 1)) == 1) {
			if (write(s, buf, 1) != 1) {
				die("write");
			}
		}
	}
	close(s);
}

static void serve_udp(int s)
{
	struct sockaddr_in from;
	socklen_t flen;
	char c;

	for (;;) {
		flen = sizeof(from);
		if (recvfrom(s, &c, 1, 0, (struct sockaddr *)&from, &flen) !=
		    1) {
			die("recvfrom");
		}
		if (c == 'q') {
			return;
		}
		sendto(s, &c, 1, 0, (struct sockaddr *)&from, flen);
	}
}

/* Fork the server; returns its pid once it is listening/bound. */
static pid_t start_server(int type, int port, int stream)
{
	struct sockaddr_in a = server_addr(port);
	int ready[2], one = 1;
	pid_t pid;
	char c;

	if (pipe(ready) != 0) {
		die("pipe");
	}
	pid = fork();
	if (pid < 0) {
		die("fork");
	}
	if (pid == 0) {
		int s = socket(AF_INET, type, 0);

		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		    (type == SOCK_STREAM && listen(s, 4) != 0)) {
			die("server socket");
		}
		if (write(ready[1], "r", 1) != 1) {
			die("write");
		}
		if (type == SOCK_STREAM) {
			serve_tcp(s, stream);
		} else {
			serve_udp(s);
		}
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		die("server did not start");
	}
	close(ready[0]);
	return pid;
}

int main(int argc, char **argv)
{
	int port = 20000 + getpid() % 20000, one = 1;
	struct sockaddr_in a = server_addr(port);
	long count;
	uint64_t t0, t1;
	int udp, stream, s;
	char c = 'x';
	pid_t pid;

	if (argc != 3 || (count = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: swrap_pcap_bench stream BYTES | "
				"pingpong ROUNDS | udp-pingpong ROUNDS\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	stream = strcmp(argv[1], "stream") == 0;
	udp = strcmp(argv[1], "udp-pingpong") == 0;
	pid = start_server(udp ? SOCK_DGRAM : SOCK_STREAM, port, stream);
	s = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		die("connect");
	}
	if (!udp) {
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	t0 = bench_now_ns();
	if (stream) {
		static char buf[CHUNK];
		long left = count;

		memset(buf, 'b', sizeof(buf));
		while (left > 0) {
			size_t n = left < CHUNK ? (size_t)left : CHUNK;
			ssize_t w = write(s, buf, n);

			if (w <= 0) {
				die("write");
			}
			left -= w;
		}
		shutdown(s, SHUT_WR);
		if (full_read(s, &c, 1) != 0) {
			die("read");
		}
	} else {
		for (long i = 0; i < count; i++) {
			if (write(s, &c, 1) != 1 || full_read(s, &c, 1) != 0) {
				die("ping-pong");
			}
		}
		if (udp) {
			c = 'q';
			if (write(s, &c, 1) != 1) {
				die("write");
			}
		} else {
			shutdown(s, SHUT_WR);
		}
	}
	t1 = bench_now_ns();
	close(s);
	waitpid(pid, NULL, 0);
	if (stream) {
		bench_report((double)count / 1e6 / ((double)(t1 - t0) / 1e9),
			     "MB/s");
	} else {
		bench_report((double)(t1 - t0) / 1e3 / (double)count, "us/op");
	}
	return 0;
}
