/*
 * launcher_probe: the command that the launcher's tests run under cwrap,
 * built with the project so that those tests run in every build (i686,
 * musl) without preloading the wrappers into the system's programs.
 *
 *   launcher_probe args ARG...   each ARG as "[ARG]" on a line
 *   launcher_probe env VAR...    "VAR=value" or "VAR unset", a line each
 *   launcher_probe exit N        exits with status N
 *   launcher_probe raise N       kills itself with signal N
 *   launcher_probe pid           its pid
 *   launcher_probe enabled FN... calls each bool FN(void), such as
 *                                socket_wrapper_enabled: "FN 1", "FN 0",
 *                                or "FN absent" when no preloaded library
 *                                defines it
 *   launcher_probe bind          binds TCP 127.0.0.10:7 and prints the
 *                                socket's name in SOCKET_WRAPPER_DIR,
 *                                "T0A0007", if it is there
 *   launcher_probe wait FILE     writes SOCKET_WRAPPER_DIR to FILE, then
 *                                waits for a signal to end it
 *   launcher_probe serve FILE    writes SOCKET_WRAPPER_DIR to FILE, then
 *                                waits for a signal: TERM, INT, HUP are
 *                                counted on stdout ("got N"), QUIT ends it
 *                                with status 3 after the count
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t last, count, quit;

static void on_signal(int sig)
{
	if (sig == SIGQUIT) {
		quit = 1;
		return;
	}
	last = sig;
	count++;
}

/* Writes SOCKET_WRAPPER_DIR to `file`: the test knows the command runs. */
static int ready(const char *file)
{
	const char *dir = getenv("SOCKET_WRAPPER_DIR");
	FILE *f = fopen(file, "w");

	if (f == NULL || fprintf(f, "%s\n", dir != NULL ? dir : "") < 0 ||
	    fclose(f) != 0) {
		perror(file);
		return -1;
	}
	return 0;
}

static int serve(const char *file)
{
	struct sigaction sa;
	int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
	unsigned i;
	int seen = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
	}
	if (ready(file) != 0) {
		return 1;
	}
	for (;;) {
		while (seen == count && !quit) {
			pause();
		}
		while (seen < count) {
			seen++;
			printf("got %d (signal %d)\n", seen, (int)last);
			fflush(stdout);
		}
		if (quit) {
			return 3;
		}
	}
}

static int bind_probe(void)
{
	struct sockaddr_in sin;
	const char *dir = getenv("SOCKET_WRAPPER_DIR");
	char path[4096];
	struct stat st;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(7);
	inet_pton(AF_INET, "127.0.0.10", &sin.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		perror("bind 127.0.0.10:7");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/T0A0007", dir != NULL ? dir : "");
	if (dir == NULL || stat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "no socket %s\n", path);
		return 1;
	}
	printf("T0A0007\n");
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: launcher_probe args|env|exit|raise|"
				"pid|enabled|bind|wait|serve ...\n");
		return 2;
	}
	if (strcmp(argv[1], "args") == 0) {
		for (i = 2; i < argc; i++) {
			printf("[%s]\n", argv[i]);
		}
		return 0;
	}
	if (strcmp(argv[1], "env") == 0) {
		for (i = 2; i < argc; i++) {
			const char *v = getenv(argv[i]);
			if (v != NULL) {
				printf("%s=%s\n", argv[i], v);
			} else {
				printf("%s unset\n", argv[i]);
			}
		}
		return 0;
	}
	if (strcmp(argv[1], "exit") == 0 && argc == 3) {
		return atoi(argv[2]);
	}
	if (strcmp(argv[1], "raise") == 0 && argc == 3) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 99;
	}
	if (strcmp(argv[1], "enabled") == 0) {
		void *self = dlopen(NULL, RTLD_NOW);
		for (i = 2; i < argc; i++) {
			int (*fn)(void) = NULL;
			void *sym = self != NULL ? dlsym(self, argv[i]) : NULL;
			if (sym == NULL) {
				printf("%s absent\n", argv[i]);
				continue;
			}
			/* (POSIX: a data pointer converts to a function's) */
			memcpy(&fn, &sym, sizeof(fn));
			printf("%s %d\n", argv[i], (int)(_Bool)(fn() & 1));
		}
		return 0;
	}
	if (strcmp(argv[1], "pid") == 0) {
		printf("%ld\n", (long)getpid());
		return 0;
	}
	if (strcmp(argv[1], "bind") == 0) {
		return bind_probe();
	}
	if (strcmp(argv[1], "wait") == 0 && argc == 3) {
		if (ready(argv[2]) != 0) {
			return 1;
		}
		for (;;) {
			pause();
		}
	}
	if (strcmp(argv[1], "serve") == 0 && argc == 3) {
		return serve(argv[2]);
	}
	fprintf(stderr, "launcher_probe: bad arguments\n");
	return 2;
}
