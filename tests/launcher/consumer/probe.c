/*
 * probe WORD...: the test program of the consumer projects (CMake's
 * cwrap_add_test(), Meson, Automake). Each WORD is a check; all must hold.
 *   loaded:LIB=0|1      LIB (libsocket_wrapper.so...) is (not) mapped
 *   enabled:FN=0|1      bool FN(void) of a preloaded library answers so
 *   env:VAR=VALUE       VAR has exactly VALUE
 *   unset:VAR           VAR is not set
 *   uid:N               getuid() is N
 *   chroot:DIR          chroot(DIR) succeeds (for an ordinary user: only
 *                       under priv_wrapper's PRIV_WRAPPER_CHROOT_DISABLE)
 *   user:NAME=UID       getpwnam(NAME) finds NAME with UID
 *   bind:SECONDS        binds TCP 127.0.0.10:7, finds T0A0007 in a private
 *                       SOCKET_WRAPPER_DIR ($TMPDIR/cwrap-XXXXXX), holds it
 *   args:FILE ARG...    the remaining arguments are FILE's lines
 * Without arguments, the words of $CHECKS (for Automake's TESTS, which
 * runs a test program without arguments).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int failed;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "probe: %s: %s\n", what, detail);
	failed = 1;
}

/* LIB ("libnss_wrapper.so", or with directories before it) names a
 * mapped file: the maps show the file that the links lead to, so
 * "libnss_wrapper.so.1.2.0" counts too. */
static int loaded(const char *lib)
{
	char line[4096], *p;
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = strlen(lib);
	int found = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		for (p = strstr(line, lib); p != NULL; p = strstr(p + 1, lib)) {
			if (p > line && p[-1] == '/' &&
			    (p[n] == '\0' || p[n] == '.')) {
				found = 1;
			}
		}
	}
	if (f != NULL) {
		fclose(f);
	}
	return found;
}

static int enabled(const char *fn)
{
	void *sym = dlsym(RTLD_DEFAULT, fn);
	int (*f)(void);

	if (sym == NULL) {
		return -1;
	}
	memcpy(&f, &sym, sizeof(f));
	return (_Bool)(f() & 1);
}

static void bind_hold(int seconds)
{
	const char *dir = getenv("SOCKET_WRAPPER_DIR");
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_in sin;
	char path[4096], want[4096];
	struct stat st;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	snprintf(want, sizeof(want), "%s/cwrap-", tmp != NULL ? tmp : "/tmp");
	if (dir == NULL || strncmp(dir, want, strlen(want)) != 0) {
		fail("SOCKET_WRAPPER_DIR not a private directory",
		     dir != NULL ? dir : "(unset)");
		return;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(7);
	inet_pton(AF_INET, "127.0.0.10", &sin.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(fd, 1) != 0) {
		fail("bind 127.0.0.10:7", "failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/T0A0007", dir);
	if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		fail("no socket", path);
	}
	printf("bound in %s\n", dir);
	sleep((unsigned)seconds);
	close(fd);
}

static void args(const char *file, char **argv, int argc)
{
	char line[4096];
	FILE *f = fopen(file, "r");
	int i = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (i >= argc) {
			fail("argument missing", line);
		} else if (strcmp(argv[i], line) != 0) {
			fprintf(stderr, "probe: argument %d: [%s], want [%s]\n",
				i, argv[i], line);
			failed = 1;
		}
		i++;
	}
	if (f == NULL) {
		fail("cannot read", file);
	} else {
		fclose(f);
	}
	if (i != argc) {
		fprintf(stderr, "probe: %d arguments, want %d\n", argc, i);
		failed = 1;
	}
	printf("%d arguments as given\n", argc);
}

/* argv from the words of $CHECKS. */
static char **words(int *argc)
{
	static char *argv[64];
	char *checks = getenv("CHECKS"), *save = NULL, *w;

	*argc = 1;
	argv[0] = "probe";
	checks = checks != NULL ? strdup(checks) : NULL;
	for (w = checks != NULL ? strtok_r(checks, " ", &save) : NULL;
	     w != NULL && *argc < 63; w = strtok_r(NULL, " ", &save)) {
		argv[(*argc)++] = w;
	}
	return argv;
}

int main(int argc, char **argv)
{
	int i;

	if (argc == 1) {
		argv = words(&argc);
		if (argc == 1) {
			fail("no check given", "(arguments or CHECKS)");
		}
	}

	for (i = 1; i < argc; i++) {
		char *w = argv[i], *v = strchr(w, ':'), *eq;
		const char *val;
		struct passwd *pw;

		if (v == NULL) {
			fail("not a check", w);
			continue;
		}
		*v++ = '\0';
		if (strcmp(w, "args") == 0) {
			args(v, argv + i + 1, argc - i - 1);
			break;
		}
		if (strcmp(w, "unset") == 0) {
			if (getenv(v) != NULL) {
				fail("set", v);
			}
			continue;
		}
		if (strcmp(w, "uid") == 0) {
			if ((long)getuid() != atol(v)) {
				fail("uid is not", v);
			}
			continue;
		}
		if (strcmp(w, "chroot") == 0) {
			if (chroot(v) != 0) {
				fail("chroot failed", v);
			}
			continue;
		}
		if (strcmp(w, "bind") == 0) {
			bind_hold(atoi(v));
			continue;
		}
		eq = strchr(v, '=');
		if (eq == NULL) {
			fail("no '=' in", v);
			continue;
		}
		*eq++ = '\0';
		if (strcmp(w, "loaded") == 0) {
			if (loaded(v) != atoi(eq)) {
				fail(atoi(eq) ? "not loaded" : "loaded", v);
			}
		} else if (strcmp(w, "enabled") == 0) {
			if (enabled(v) != atoi(eq)) {
				fail(enabled(v) < 0 ? "absent"
						    : "enabled is not",
				     v);
			}
		} else if (strcmp(w, "env") == 0) {
			val = getenv(v);
			if (val == NULL || strcmp(val, eq) != 0) {
				fprintf(stderr, "probe: %s=[%s], want [%s]\n",
					v, val != NULL ? val : "(unset)", eq);
				failed = 1;
			}
		} else if (strcmp(w, "user") == 0) {
			pw = getpwnam(v);
			if (pw == NULL || (long)pw->pw_uid != atol(eq)) {
				fail("no such user in the file", v);
			}
		} else {
			fail("unknown check", w);
		}
	}
	if (!failed) {
		printf("ok\n");
	}
	return failed;
}
