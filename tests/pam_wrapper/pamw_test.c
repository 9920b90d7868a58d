/*
 * Helpers of the pam_wrapper tests: see pamw_test.h.
 */
#include "pamw_test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int pamw_test_setup(void **state)
{
	struct pamw_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->dir = cwrap_test_mkdtemp("pam");
	t->svcdir = cwrap_test_path(t->dir, "services");
	t->passdb = cwrap_test_path(t->dir, "passdb");
	assert_int_equal(mkdir(t->svcdir, 0755), 0);
	pamw_test_passdb(t, "alice:secret:svc\nbob:pw:other\n");
	/* libpam reads `other` after every service (and logs an error line
	 * where there is none): one that refuses everything */
	pamw_test_service(t, "other",
			  "auth     required pam_deny.so\n"
			  "account  required pam_deny.so\n"
			  "password required pam_deny.so\n"
			  "session  required pam_deny.so\n");
	setenv("PAM_WRAPPER", "1", 1);
	setenv("PAM_WRAPPER_SERVICE_DIR", t->svcdir, 1);
	*state = t;
	return 0;
}

int pamw_test_teardown(void **state)
{
	struct pamw_test *t = *state;

	unsetenv("PAM_WRAPPER");
	unsetenv("PAM_WRAPPER_SERVICE_DIR");
	unsetenv("PAM_MATRIX_PASSWD");
	cwrap_test_rmtree(t->dir);
	free(t->dir);
	free(t->svcdir);
	free(t->passdb);
	free(t);
	return 0;
}

const char *pamw_test_module_dir(void)
{
	const char *d = getenv("CWRAP_PAM_MODULE_DIR");

	assert_non_null(d);
	return d;
}

void pamw_test_service(struct pamw_test *t, const char *name, const char *text)
{
	char *path = cwrap_test_path(t->svcdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (const char *p = text; *p != '\0'; p++) {
		if (strncmp(p, "@M@", 3) == 0) {
			fputs(pamw_test_module_dir(), f);
			p += 2;
		} else if (strncmp(p, "@P@", 3) == 0) {
			fputs(t->passdb, f);
			p += 2;
		} else {
			fputc(*p, f);
		}
	}
	assert_int_equal(fclose(f), 0);
	free(path);
}

void pamw_test_passdb(struct pamw_test *t, const char *text)
{
	cwrap_test_write_file(t->passdb, text);
}

static int capture_fd = -1, saved_stderr = -1;
static char capture_file[4096];

void pamw_test_capture_begin(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(capture_file, sizeof(capture_file),
		 "%s/cwrap-pam-stderr-XXXXXX",
		 tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	capture_fd = mkstemp(capture_file);
	assert_true(capture_fd >= 0);
	fflush(stderr);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(capture_fd, 2), 2);
}

char *pamw_test_capture_end(void)
{
	char *text;

	fflush(stderr);
	assert_int_equal(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	close(capture_fd);
	text = cwrap_test_read_file(capture_file, NULL);
	unlink(capture_file);
	assert_non_null(text);
	/* (shown, so that a failing case's output says what was there) */
	fputs(text, stderr);
	return text;
}

int pamw_test_in_child(int (*fn)(void *arg), void *arg)
{
	int fds[2], rc = -1, status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		rc = fn(arg);
		fflush(NULL);
		if (write(fds[1], &rc, sizeof(rc)) != sizeof(rc)) {
			_exit(1);
		}
		/* (a killed process gets no leak check, valgrind's or the
		 * sanitizer's) */
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &rc, sizeof(rc)), sizeof(rc));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	return rc;
}

int pamw_test_count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *line = text; *line != '\0';) {
		const char *nl = strchr(line, '\n');
		size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);

		assert_non_null(copy);
		if (strstr(copy, needle) != NULL) {
			n++;
		}
		free(copy);
		line += len + (nl != NULL ? 1 : 0);
	}
	return n;
}

const char *pamw_test_env(char **envlist, const char *name)
{
	size_t n = strlen(name);

	for (char **e = envlist; e != NULL && *e != NULL; e++) {
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
			return *e + n + 1;
		}
	}
	return NULL;
}
