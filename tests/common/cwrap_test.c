/*
 * Test helpers: see cwrap_test.h.
 */
#include "cwrap_test.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *cwrap_test_mkdtemp(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *path = NULL;

	if (tmp == NULL || *tmp == '\0') {
		tmp = "/tmp";
	}
	assert_true(asprintf(&path, "%s/cwrap-%s-XXXXXX", tmp, tag) > 0);
	assert_non_null(mkdtemp(path));
	return path;
}

static int cwrap_test_rm_one(const char *path, const struct stat *st, int flag,
			     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void cwrap_test_rmtree(const char *path)
{
	nftw(path, cwrap_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void cwrap_test_write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(content, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

char *cwrap_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL) {
		return NULL;
	}
	do {
		if (cap - n < 4096) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	if (len != NULL) {
		*len = n;
	}
	return buf;
}

char *cwrap_test_path(const char *dir, const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

int cwrap_test_host_programs_wrapped(void)
{
	return getenv("CWRAP_FOREIGN_PROGRAMS") == NULL;
}

int cwrap_test_host_programs_start(void)
{
	const char *v = getenv("CWRAP_FOREIGN_PROGRAMS");

	return v == NULL || strcmp(v, "fail") != 0;
}

int cwrap_test_wait_ms(void)
{
	const char *v = getenv("CWRAP_TEST_WAIT");
	char *end;
	long s;

	if (v == NULL || *v == '\0') {
		return 60 * 1000;
	}
	s = strtol(v, &end, 10);
	if (*end != '\0' || s <= 0 || s > 24 * 3600) {
		return 60 * 1000;
	}
	return (int)(s * 1000);
}

int cwrap_test_system_unwrapped(const char *cmd)
{
	extern char **environ;
	char **env;
	size_t n = 0, k = 0;
	pid_t pid;
	int status;

	while (environ[n] != NULL) {
		n++;
	}
	env = calloc(n + 1, sizeof(*env));
	assert_non_null(env);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) {
			env[k++] = environ[i];
		}
	}
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execle("/bin/sh", "sh", "-c", cmd, (char *)NULL, env);
		_exit(127);
	}
	free(env);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

double cwrap_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct cwrap_test_rounds cwrap_test_rounds_start(int min, int max)
{
	struct cwrap_test_rounds r = {
	    .round = -1, .min = min, .max = max, .start = cwrap_test_now()};

	return r;
}

int cwrap_test_rounds_next(struct cwrap_test_rounds *r)
{
	r->round++;
	if (r->round >= r->max) {
		return 0;
	}
	return r->round < r->min || cwrap_test_now() - r->start < 2.0;
}
