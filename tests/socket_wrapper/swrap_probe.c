/*
 * Helper of the environment tests, run under the wrapper: prints
 *     enabled=<0|1> bind=<ok|errno name> name=<getsockname>
 * after binding a TCP socket to ADDRESS:PORT (default 127.0.0.10:7), and
 * with "-n N" opens N sockets and prints how many succeeded and the errno
 * of the first failure. Errno names, not texts: those differ between C
 * libraries.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "socket_wrapper.h"

static const char *errno_name(int e)
{
	static char other[16];

	switch (e) {
	case 0:
		return "none";
	case EADDRNOTAVAIL:
		return "EADDRNOTAVAIL";
	case EADDRINUSE:
		return "EADDRINUSE";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case ENFILE:
		return "ENFILE";
	case EMFILE:
		return "EMFILE";
	default:
		snprintf(other, sizeof(other), "errno %d", e);
		return other;
	}
}

int main(int argc, char **argv)
{
	const char *addr = "127.0.0.10";
	int port = 7;
	struct sockaddr_storage ss;
	socklen_t len;
	char a[INET6_ADDRSTRLEN] = "?";
	int fd, rc;

	if (argc == 3 && strcmp(argv[1], "-n") == 0) {
		int n = atoi(argv[2]), ok = 0, err = 0;

		for (int i = 0; i < n; i++) {
			if (socket(AF_INET, SOCK_DGRAM, 0) >= 0) {
				ok++;
			} else if (err == 0) {
				err = errno;
			}
		}
		printf("opened=%d error=%s\n", ok, errno_name(err));
		return 0;
	}
	if (argc == 3) {
		addr = argv[1];
		port = atoi(argv[2]);
	}
	memset(&ss, 0, sizeof(ss));
	((struct sockaddr_in *)&ss)->sin_family = AF_INET;
	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	rc = bind(fd, (struct sockaddr *)&ss, sizeof(struct sockaddr_in));
	printf("enabled=%d bind=%s", socket_wrapper_enabled() ? 1 : 0,
	       rc == 0 ? "ok" : errno_name(errno));
	len = sizeof(ss);
	if (rc == 0 && getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a,
			  sizeof(a));
		printf(" name=%s:%u", a,
		       ntohs(((struct sockaddr_in *)&ss)->sin_port));
	}
	printf("\n");
	return 0;
}
