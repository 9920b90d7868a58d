/*
 * uwrap_spawn: system() and popen()/pclose(). glibc runs their shell with
 * an internal posix_spawn() that our wrapper cannot see, with environ, from
 * which the library removed the UID_WRAPPER_INITIAL_* this process started
 * with; here they are done the way glibc does them, with the environment of
 * uwrap_exec_envp(), so that the command starts from the ids this process
 * started with (or the current ones with UID_WRAPPER_SPAWN_CURRENT=1).
 *
 * State: the list of open popen() streams (stream, its fd, the child's
 * pid), guarded by uwrap_popen_lock, which is also held across fork (atfork
 * handlers, registered on the first popen()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uwrap.h"
#include "uwrap_libc.h"

extern char **environ;

/*
 * system(), the way glibc does it (SIGINT and SIGQUIT ignored and SIGCHLD
 * blocked while the command runs, the child gets the caller's mask and default
 * handlers), with our environment. Concurrent calls from several threads each
 * restore the dispositions they found.
 */
int uwrap_system(const char *command)
{
	static char sh[] = "sh", dash_c[] = "-c", dashdash[] = "--",
		    exit0[] = "exit 0";
	struct sigaction ign, intr, quit;
	sigset_t chld, omask, defaults;
	posix_spawnattr_t attr;
	char *argv[5] = {sh, dash_c, dashdash, (char *)command, NULL};
	char *const *env;
	void *to_free;
	int status = -1, err;
	pid_t pid;

	if (command == NULL) {
		argv[3] = exit0;
	}
	env = uwrap_exec_envp(environ, UWRAP_HAND_INITIAL, false, &to_free);
	if (env == NULL && environ != NULL) {
		return -1;
	}

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &intr);
	sigaction(SIGQUIT, &ign, &quit);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);

	sigemptyset(&defaults);
	if (intr.sa_handler != SIG_IGN) {
		sigaddset(&defaults, SIGINT);
	}
	if (quit.sa_handler != SIG_IGN) {
		sigaddset(&defaults, SIGQUIT);
	}
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF |
					    POSIX_SPAWN_SETSIGMASK);

	err = libc_posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	if (err == 0) {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	} else {
		status = 127 << 8; /* as if the shell exited with 127 */
	}

	err = errno;
	sigaction(SIGINT, &intr, NULL);
	sigaction(SIGQUIT, &quit, NULL);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	free(to_free);
	errno = err;
	if (command == NULL) {
		return status == 0;
	}
	return status;
}

/* ---- popen()/pclose() ---- */

struct uwrap_popen {
	struct uwrap_popen *next;
	FILE *fp;
	int fd;
	pid_t pid;
};

static pthread_mutex_t uwrap_popen_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uwrap_popen *uwrap_popen_list;
static pthread_once_t uwrap_popen_once = PTHREAD_ONCE_INIT;

static void uwrap_popen_prepare(void)
{
	pthread_mutex_lock(&uwrap_popen_lock);
}

static void uwrap_popen_parent(void)
{
	pthread_mutex_unlock(&uwrap_popen_lock);
}

static void uwrap_popen_child(void)
{
	pthread_mutex_init(&uwrap_popen_lock, NULL);
}

static void uwrap_popen_init(void)
{
	pthread_atfork(uwrap_popen_prepare, uwrap_popen_parent,
		       uwrap_popen_child);
}

/* glibc's modes: exactly one of r and w, and e for close-on-exec. */
static bool uwrap_popen_mode(const char *mode, bool *reading, bool *cloexec)
{
	bool r = false, w = false;

	*cloexec = false;
	for (; *mode != '\0'; mode++) {
		switch (*mode) {
		case 'r':
			r = true;
			break;
		case 'w':
			w = true;
			break;
		case 'e':
			*cloexec = true;
			break;
		default:
			return false;
		}
	}
	*reading = r;
	return r != w;
}

FILE *uwrap_popen(const char *command, const char *mode)
{
	static char sh[] = "sh", dash_c[] = "-c", dashdash[] = "--";
	char *argv[5] = {sh, dash_c, dashdash, (char *)command, NULL};
	posix_spawn_file_actions_t fa;
	struct uwrap_popen *p, *e;
	bool reading, cloexec;
	char *const *env;
	void *to_free;
	int fds[2], mine, theirs, err;

	if (command == NULL || mode == NULL ||
	    !uwrap_popen_mode(mode, &reading, &cloexec)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_once(&uwrap_popen_once, uwrap_popen_init);
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) != 0) {
		free(p);
		return NULL;
	}
	mine = reading ? fds[0] : fds[1];
	theirs = reading ? fds[1] : fds[0];
	env = uwrap_exec_envp(environ, UWRAP_HAND_INITIAL, false, &to_free);
	if (env == NULL && environ != NULL) {
		err = errno;
		goto fail;
	}

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, theirs, reading ? 1 : 0);
	pthread_mutex_lock(&uwrap_popen_lock);
	/* POSIX: streams of earlier popen() calls are closed in the child */
	for (e = uwrap_popen_list; e != NULL; e = e->next) {
		posix_spawn_file_actions_addclose(&fa, e->fd);
	}
	err = libc_posix_spawn(&p->pid, "/bin/sh", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(to_free);
	if (err != 0) {
		pthread_mutex_unlock(&uwrap_popen_lock);
		goto fail;
	}
	close(theirs);
	if (!cloexec) {
		fcntl(mine, F_SETFD, 0);
	}
	p->fd = mine;
	p->fp = fdopen(mine, reading ? "r" : "w");
	if (p->fp == NULL) {
		err = errno;
		pthread_mutex_unlock(&uwrap_popen_lock);
		close(mine);
		waitpid(p->pid, NULL, 0);
		free(p);
		errno = err;
		return NULL;
	}
	p->next = uwrap_popen_list;
	uwrap_popen_list = p;
	pthread_mutex_unlock(&uwrap_popen_lock);
	return p->fp;

fail:
	close(fds[0]);
	close(fds[1]);
	free(p);
	errno = err;
	return NULL;
}

int uwrap_pclose(FILE *fp, bool *ours)
{
	struct uwrap_popen **pp, *p = NULL;
	int status = -1;
	pid_t rc;

	pthread_mutex_lock(&uwrap_popen_lock);
	for (pp = &uwrap_popen_list; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->fp == fp) {
			p = *pp;
			*pp = p->next;
			break;
		}
	}
	pthread_mutex_unlock(&uwrap_popen_lock);
	*ours = p != NULL;
	if (p == NULL) {
		return -1;
	}
	fclose(fp);
	do {
		rc = waitpid(p->pid, &status, 0);
	} while (rc < 0 && errno == EINTR);
	free(p);
	return rc < 0 ? -1 : status;
}
