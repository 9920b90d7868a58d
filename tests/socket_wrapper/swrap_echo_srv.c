/*
 * Echo server for the socket_wrapper tests, run under the wrapper:
 *     swrap_echo_srv tcp|udp ADDRESS PORT
 * binds ADDRESS:PORT (IPv4 or IPv6, a privileged port is fine), prints
 * "ready" on stdout and echoes every byte (TCP: one forked child per
 * connection) or datagram (UDP) back until killed. Logs each peer on
 * stderr: "accepted peer=A local=B" or "datagram from=A".
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ntop(const struct sockaddr_storage *ss, char *buf,
			size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s->sin6_port));
	} else {
		snprintf(buf, len, "family-%d", ss->ss_family);
	}
	return buf;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void echo_stream(int c)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(c, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(c, buf + off, (size_t)(n - off));

			if (w <= 0) {
				return;
			}
			off += w;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int tcp, fd, one = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: %s tcp|udp ADDRESS PORT\n", argv[0]);
		return 2;
	}
	tcp = strcmp(argv[1], "tcp") == 0;
	memset(&ss, 0, sizeof(ss));
	if (strchr(argv[2], ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)atoi(argv[3]));
		if (inet_pton(AF_INET6, argv[2], &s6->sin6_addr) != 1) {
			die("inet_pton");
		}
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)atoi(argv[3]));
		if (inet_pton(AF_INET, argv[2], &s4->sin_addr) != 1) {
			die("inet_pton");
		}
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0) {
		die("socket");
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
		die("setsockopt");
	}
	if (bind(fd, (struct sockaddr *)&ss, len) != 0) {
		die("bind");
	}
	if (tcp && listen(fd, 64) != 0) {
		die("listen");
	}
	signal(SIGCHLD, SIG_IGN);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (tcp) {
			struct sockaddr_storage peer, local;
			socklen_t plen = sizeof(peer), llen = sizeof(local);
			char a[80], b[80];
			int c = accept(fd, (struct sockaddr *)&peer, &plen);

			if (c < 0) {
				continue;
			}
			getsockname(c, (struct sockaddr *)&local, &llen);
			fprintf(stderr, "accepted peer=%s local=%s\n",
				ntop(&peer, a, sizeof(a)),
				ntop(&local, b, sizeof(b)));
			if (fork() == 0) {
				close(fd);
				echo_stream(c);
				_exit(0);
			}
			close(c);
		} else {
			char buf[65536];
			struct sockaddr_storage from;
			socklen_t flen = sizeof(from);
			ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
					     (struct sockaddr *)&from, &flen);

			if (n >= 0) {
				char a[80];

				fprintf(stderr, "datagram from=%s\n",
					ntop(&from, a, sizeof(a)));
				sendto(fd, buf, (size_t)n, 0,
				       (struct sockaddr *)&from, flen);
			}
		}
	}
}
