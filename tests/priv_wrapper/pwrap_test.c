/*
 * Test helpers: see pwrap_test.h.
 */
#include "pwrap_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pwrap_outcome
pwrap_test_child(bool native, void (*fn)(struct pwrap_outcome *o, void *arg),
		 void *arg)
{
	struct pwrap_outcome o;
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	fflush(stdout);
	fflush(stderr);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		if (native) {
			unsetenv("PRIV_WRAPPER");
		}
		fn(&o, arg);
		/* (a child under a seccomp filter may not write: its
		 * outcome then is the signal) */
		n = write(fd[1], &o, sizeof(o));
		_exit(n == (ssize_t)sizeof(o) ? 0 : 1);
	}
	close(fd[1]);
	n = read(fd[0], &o, sizeof(o));
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status)) {
		memset(&o, 0, sizeof(o));
		o.signal = WTERMSIG(status);
	} else {
		assert_int_equal(n, (ssize_t)sizeof(o));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	return o;
}

void pwrap_test_expect_both_refused(const struct pwrap_outcome *native,
				    const struct pwrap_outcome *wrapped,
				    int err)
{
	assert_int_equal(native->rc, -1);
	assert_int_equal(native->err, err);
	assert_int_equal(wrapped->rc, -1);
	assert_int_equal(wrapped->err, err);
}

bool pwrap_test_is_root(void)
{
	return geteuid() == 0;
}

static void set_or_unset(const char *var, const char *value)
{
	if (value != NULL) {
		assert_int_equal(setenv(var, value, 1), 0);
	} else {
		assert_int_equal(unsetenv(var), 0);
	}
}

void pwrap_test_env(const char *chroot_disable, const char *prctl_disable,
		    const char *setrlimit_disable)
{
	set_or_unset("PRIV_WRAPPER", "1");
	set_or_unset("PRIV_WRAPPER_CHROOT_DISABLE", chroot_disable);
	set_or_unset("PRIV_WRAPPER_PRCTL_DISABLE", prctl_disable);
	set_or_unset("PRIV_WRAPPER_SETRLIMIT_DISABLE", setrlimit_disable);
}

void pwrap_test_env_clear(void)
{
	pwrap_test_env(NULL, NULL, NULL);
	set_or_unset("PRIV_WRAPPER", NULL);
}

char *pwrap_test_stderr(void (*fn)(void *arg), void *arg)
{
	char *dir = cwrap_test_mkdtemp("pwrap-stderr");
	char *path = cwrap_test_path(dir, "stderr");
	char *out;
	int fd, saved;

	fflush(stderr);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
	fn(arg);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	out = cwrap_test_read_file(path, NULL);
	assert_non_null(out);
	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
	return out;
}

bool pwrap_test_valgrind_answers(const char *what)
{
	const char *p = getenv("LD_PRELOAD");

	if (p == NULL || strstr(p, "vgpreload") == NULL) {
		return false;
	}
	printf("under valgrind, which answers %s itself: skipped\n", what);
	return true;
}

int pwrap_test_count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(s, needle); p != NULL;
	     p = strstr(p + 1, needle)) {
		n++;
	}
	return n;
}
