/*
 * Client helper for the interoperability checks: connects a TCP or UDP
 * socket to ADDRESS PORT, prints "local=A peer=B" as getsockname and
 * getpeername answer, sends MESSAGE and prints the echo: "reply=...".
 *     swrap_client tcp|udp ADDRESS PORT MESSAGE
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ntop(const struct sockaddr_storage *ss, char *buf)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		sprintf(buf, "%s:%u", a, ntohs(s->sin_port));
	} else {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		sprintf(buf, "[%s]:%u", a, ntohs(s->sin6_port));
	}
	return buf;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss, l, p;
	socklen_t len, ll = sizeof(l), pl = sizeof(p);
	char a[80], b[80], buf[256] = {0};
	size_t n;
	ssize_t r;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: %s tcp|udp ADDRESS PORT MESSAGE\n",
			argv[0]);
		return 2;
	}
	memset(&ss, 0, sizeof(ss));
	if (strchr(argv[2], ':') != NULL) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)atoi(argv[3]));
		inet_pton(AF_INET6, argv[2], &s->sin6_addr);
		len = sizeof(*s);
	} else {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)atoi(argv[3]));
		inet_pton(AF_INET, argv[2], &s->sin_addr);
		len = sizeof(*s);
	}
	fd = socket(ss.ss_family,
		    strcmp(argv[1], "tcp") == 0 ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) != 0) {
		perror("connect");
		return 1;
	}
	n = strlen(argv[4]);
	if (send(fd, argv[4], n, 0) != (ssize_t)n) {
		perror("send");
		return 1;
	}
	if (getsockname(fd, (struct sockaddr *)&l, &ll) != 0 ||
	    getpeername(fd, (struct sockaddr *)&p, &pl) != 0) {
		perror("names");
		return 1;
	}
	printf("local=%s peer=%s\n", ntop(&l, a), ntop(&p, b));
	r = recv(fd, buf, n < sizeof(buf) - 1 ? n : sizeof(buf) - 1,
		 MSG_WAITALL);
	printf("reply=%s\n", r > 0 ? buf : "(none)");
	close(fd);
	return 0;
}
