/*
 * The cwrap launcher's internal interface: launcher.c turns the options
 * into a plan (which libraries, which variables, which socket directory),
 * launcher_run.c carries it out (the directory, the environment, the
 * command, its exit status). The program is single-threaded: no locks.
 */
#ifndef CWRAP_LAUNCHER_H
#define CWRAP_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "cwrap_compiler.h"

/* cwrap's own failures (bad option, missing file): the status that env(1),
 * nice(1) and timeout(1) use, so that it is not mistaken for the
 * command's; 126 and 127 as from a shell when the command cannot run. */
#define LAUNCHER_EXIT_ERROR 125
#define LAUNCHER_EXIT_NOEXEC 126
#define LAUNCHER_EXIT_NOTFOUND 127

enum launcher_lib {
	LIB_SOCKET,
	LIB_NSS,
	LIB_UID,
	LIB_RESOLV,
	LIB_PAM,
	LIB_PRIV,
	LIB_COUNT
};

#define LAUNCHER_MAX_VARS 32

struct launcher_plan {
	bool use[LIB_COUNT];		/* preload these, in enum order */
	const char *why[LIB_COUNT];	/* the option that asked, for errors */
	bool no_socket;			/* --no-socket */
	int supervise; /* --supervise 1, --no-supervise -1, else 0: when
			* the command needs it (a static or Go program) */
	const char *no_socket_conflict; /* a socket option seen with it */
	char *dir;		/* --dir as given; NULL: a private one */
	bool keep;		/* --keep */
	bool print_env;		/* --print-env */
	const char *debug;	/* --debug LEVEL, or NULL */
	bool sockets;		/* --sockets: list a directory, run nothing */
	bool json;		/* --json (with --sockets) */
	bool listening;		/* --listening (with --sockets) */
	const char *run_option; /* the first option that runs something */
	size_t nvars;
	struct {
		const char *name;
		char *value;
	} vars[LAUNCHER_MAX_VARS]; /* set in this order */
};

/* launcher.c */
void launcher_die(const char *fmt, ...) CWRAP_PRINTF(1, 2) CWRAP_NORETURN;
void launcher_set(struct launcher_plan *p, const char *name, char *value);

/* launcher_run.c: the socket directory (made now when private), the
 * variables and LD_PRELOAD put in this process's environment. */
void launcher_prepare(struct launcher_plan *p, const char *argv0);
/* Prints the plan's variables as `export NAME='value'` lines. */
void launcher_print_env(const struct launcher_plan *p);
/* Runs argv[0] with argv, supervised (src/supervisor/sup.h) as the plan
 * and the program say; returns only on failure to start it, with the
 * status to exit with, or after the command, with its exit status (a
 * command killed by a signal is re-raised here). */
int launcher_run(const struct launcher_plan *p, char **argv);
/* The internal modes with which socket_wrapper's exec wrappers run a
 * static or Go program (cwrap --exec-supervised PATH ARG0 [ARG...]):
 * supervised by a detached process (cwrap --serve-listener FD), then
 * exec'd in this same process. Return only on failure. */
int launcher_exec_supervised(char **argv);
int launcher_serve_listener(char **argv);

#endif
