/*
 * consumer noop|<path>: checks which library answers
 * socket_wrapper_enabled(): the linked no-op library, or the preloaded
 * socket_wrapper at <path>.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <socket_wrapper.h>

int main(int argc, char **argv)
{
	Dl_info info;
	char *want, *got;

	if (argc != 2) {
		fprintf(stderr, "usage: consumer noop|LIBRARY\n");
		return 2;
	}
	if (dladdr((void *)socket_wrapper_enabled, &info) == 0) {
		fprintf(stderr, "dladdr failed\n");
		return 1;
	}
	got = realpath(info.dli_fname, NULL);
	if (strcmp(argv[1], "noop") == 0) {
		if (got == NULL || strstr(got, "libsocket_wrapper_noop.so") == NULL ||
		    socket_wrapper_enabled()) {
			fprintf(stderr, "expected the no-op library, got %s\n", info.dli_fname);
			return 1;
		}
	} else {
		want = realpath(argv[1], NULL);
		if (want == NULL || got == NULL || strcmp(want, got) != 0) {
			fprintf(stderr, "expected %s, got %s\n", argv[1], info.dli_fname);
			return 1;
		}
		free(want);
	}
	printf("socket_wrapper_enabled() from %s\n", got);
	free(got);
	return 0;
}
