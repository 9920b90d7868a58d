/*
 * cwrap_hostname: hostname without arguments (the host name from
 * gethostname()), built by the project so that the article's
 * NSS_WRAPPER_HOSTNAME demo runs in every build (a musl-built wrapper
 * cannot be preloaded into the system's glibc hostname).
 * C11 + POSIX only: it builds against glibc and musl alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char name[1025];

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: cwrap_hostname\n");
		return 1;
	}
	if (gethostname(name, sizeof(name) - 1) != 0) {
		fprintf(stderr, "cwrap_hostname: %s\n", strerror(errno));
		return 1;
	}
	name[sizeof(name) - 1] = '\0';
	printf("%s\n", name);
	return fflush(stdout) == 0 ? 0 : 1;
}
