/*
 * A static or Go program exec'd by a process of ours (a test script's
 * shell, a server that starts helpers) is run supervised, as cwrap runs
 * one (src/supervisor/sup.h): the exec becomes one of
 * `cwrap --exec-supervised PATH ARG0 ARG...`, which sets the supervisor
 * up and execs PATH in the same process (same pid, stdio, process group;
 * the exit status and signals are PATH's own). Only when the program's
 * environment names a socket directory, the program is one that escapes
 * LD_PRELOAD (cwrap_elf_kind), and the process is not supervised
 * already (a dynamic program in a supervised tree: the filter goes on
 * across exec). cwrap is SOCKET_WRAPPER_SUPERVISOR, or the one installed
 * beside this library (CWRAP_LIB_TO_BINDIR); without it the program runs
 * as asked, as before, with a one-line warning. No state but that
 * warning's flag.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_supervise.h"
#include "swrap.h"
#include "swrap_libc.h"

static bool env_names_dir(char *const envp[])
{
	static const char var[] = "SOCKET_WRAPPER_DIR=";

	for (char *const *e = envp; e != NULL && *e != NULL; e++) {
		if (strncmp(*e, var, sizeof(var) - 1) == 0 &&
		    (*e)[sizeof(var) - 1] != '\0') {
			return true;
		}
	}
	return false;
}

static bool supervised(void)
{
	int saved = errno;
	int fd = libc_socket(AF_INET, SOCK_DGRAM, CWRAP_SUPERVISED_PROBE);
	bool yes = fd < 0 && errno == CWRAP_SUPERVISED_ERRNO;

	if (fd >= 0) {
		libc_close(fd); /* (no kernel makes one) */
	}
	errno = saved;
	return yes;
}

/* cwrap, malloc'ed, or NULL. */
static char *launcher(void)
{
	const char *v = getenv("SOCKET_WRAPPER_SUPERVISOR");
	Dl_info info;
	const char *slash;
	char *p;

	if (v != NULL && *v != '\0') {
		return access(v, X_OK) == 0 ? strdup(v) : NULL;
	}
	if (dladdr((void *)swrap_supervised_argv, &info) == 0 ||
	    info.dli_fname == NULL ||
	    (slash = strrchr(info.dli_fname, '/')) == NULL) {
		return NULL;
	}
	if (asprintf(&p, "%.*s/%s/cwrap", (int)(slash - info.dli_fname),
		     info.dli_fname, CWRAP_LIB_TO_BINDIR) < 0) {
		return NULL;
	}
	if (access(p, X_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

char **swrap_supervised_argv(const char *path, char *const argv[],
			     char *const envp[], char **cwrap)
{
	static bool warned;
	const char *kind;
	size_t n = 0;
	char **v;

	if (path == NULL || !env_names_dir(envp) ||
	    (kind = cwrap_elf_kind(path)) == NULL || supervised()) {
		return NULL;
	}
	*cwrap = launcher();
	if (*cwrap == NULL) {
		if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED)) {
			CWRAP_WARN("%s is %s, and no cwrap to supervise it "
				   "(SOCKET_WRAPPER_SUPERVISOR, or one installed "
				   "beside this library): it runs unsupervised, "
				   "outside the emulated network",
				   path, kind);
		}
		return NULL;
	}
	while (argv != NULL && argv[n] != NULL) {
		n++;
	}
	v = calloc(n + 4, sizeof(*v));
	if (v == NULL) {
		free(*cwrap);
		return NULL;
	}
	v[0] = (char *)"cwrap";
	v[1] = (char *)"--exec-supervised";
	v[2] = (char *)path;
	/* (an empty argv still gives the program an argv[0]) */
	v[3] = n > 0 ? argv[0] : (char *)path;
	for (size_t i = 1; i < n; i++) {
		v[3 + i] = argv[i];
	}
	CWRAP_DEBUG("%s is %s: exec'd supervised, through %s", path, kind,
		    *cwrap);
	return v;
}
