/*
 * Helper of test_swrap_fork_exec: run (under the wrapper) with the number
 * of an inherited emulated socket. Prints "<local> <peer>" as
 * getsockname/getpeername answer, then sends "exec" on it and echoes the
 * reply it reads back to stdout. With a second argument "accept", the
 * inherited socket is a listener (socket activation, inetd): it accepts
 * one connection and does the same on the accepted socket.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void show(const struct sockaddr_storage *ss)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		printf("%s:%u", a, ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		printf("[%s]:%u", a, ntohs(s->sin6_port));
	} else {
		printf("family-%d", ss->ss_family);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[64] = {0};
	int fd;

	if (argc != 2 && argc != 3) {
		return 2;
	}
	fd = atoi(argv[1]);
	if (argc == 3 && strcmp(argv[2], "accept") == 0) {
		fd = accept(fd, NULL, NULL);
		if (fd < 0) {
			perror("accept");
			return 1;
		}
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		perror("getsockname");
		return 1;
	}
	show(&ss);
	printf(" ");
	len = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0) {
		perror("getpeername");
		return 1;
	}
	show(&ss);
	printf("\n");
	fflush(stdout);
	if (send(fd, "exec", 4, 0) != 4 || recv(fd, buf, 4, MSG_WAITALL) != 4) {
		perror("send/recv");
		return 1;
	}
	printf("%s\n", buf);
	return 0;
}
