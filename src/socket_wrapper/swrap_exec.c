/*
 * exec*() and posix_spawn*(): a static or Go program that the process
 * starts, with a socket directory in its environment, runs supervised
 * (swrap_supervise.c); every other program is exec'd or spawned exactly
 * as asked. The *p forms look the program up in PATH as libc does, only
 * to tell what it is: when it is not one to supervise, libc's own
 * function does the exec, with its own lookup. No state.
 */
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "cwrap_exec.h"
#include "cwrap_supervise.h"
#include "swrap.h"
#include "swrap_libc.h"

extern char **environ;

/* The exec of `path` done supervised; returns only if that failed, with
 * errno, the caller then doing the exec as asked. */
static void exec_supervised(const char *path, char *const argv[],
			    char *const envp[])
{
	char *cwrap = NULL;
	char **v = swrap_supervised_argv(path, argv, envp, &cwrap);
	int e;

	if (v == NULL) {
		return;
	}
	libc_execve(cwrap, v, envp);
	e = errno;
	free(v);
	free(cwrap);
	errno = e;
}

CWRAP_EXPORT int execve(const char *path, char *const argv[],
			char *const envp[])
{
	exec_supervised(path, argv, envp);
	return libc_execve(path, argv, envp);
}

CWRAP_EXPORT int execv(const char *path, char *const argv[])
{
	exec_supervised(path, argv, environ);
	return libc_execv(path, argv);
}

/* execvp() and execvpe(): the program PATH names, if it is one to
 * supervise. */
static void execp_supervised(const char *file, char *const argv[],
			     char *const envp[])
{
	char *path;

	if (*file == '\0') {
		return;
	}
	path = cwrap_find_command(file);
	if (path != NULL) {
		exec_supervised(path, argv, envp);
		free(path);
	}
}

CWRAP_EXPORT int execvpe(const char *file, char *const argv[],
			 char *const envp[])
{
	execp_supervised(file, argv, envp);
	return libc_execvpe(file, argv, envp);
}

CWRAP_EXPORT int execvp(const char *file, char *const argv[])
{
	execp_supervised(file, argv, environ);
	return libc_execvp(file, argv);
}

CWRAP_EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	char *const *unused;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, unused);
	(void)unused;
	exec_supervised(path, argv, environ);
	return libc_execv(path, argv);
}

CWRAP_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv;
	char *const *envp;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, envp);
	exec_supervised(path, argv, envp);
	return libc_execve(path, argv, envp);
}

CWRAP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	char *const *unused;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, unused);
	(void)unused;
	execp_supervised(file, argv, environ);
	return libc_execvp(file, argv);
}

/* posix_spawn(): cwrap spawned in the program's place (it becomes the
 * program in the same process: the pid is the program's). */
static int spawn_supervised(int *rc, pid_t *pid, const char *path,
			    const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	char *cwrap = NULL;
	char **v = swrap_supervised_argv(path, argv, envp, &cwrap);

	if (v == NULL) {
		return 0;
	}
	*rc = libc_posix_spawn(pid, cwrap, fa, attr, v, envp);
	free(v);
	free(cwrap);
	return 1;
}

CWRAP_EXPORT int posix_spawn(pid_t *pid, const char *path,
			     const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[],
			     char *const envp[])
{
	int rc;

	if (spawn_supervised(&rc, pid, path, fa, attr, argv, envp)) {
		return rc;
	}
	return libc_posix_spawn(pid, path, fa, attr, argv, envp);
}

CWRAP_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			      const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	char *path = *file != '\0' ? cwrap_find_command(file) : NULL;
	int rc, done = 0;

	if (path != NULL) {
		done = spawn_supervised(&rc, pid, path, fa, attr, argv, envp);
		free(path);
	}
	return done ? rc : libc_posix_spawnp(pid, file, fa, attr, argv, envp);
}
