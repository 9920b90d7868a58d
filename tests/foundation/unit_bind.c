/*
 * Binding to libc through the generated libc_<name>() functions: a symbol
 * binds on first use, from many threads at once, and a missing symbol
 * aborts with one line naming it.
 */
#include "cwrap_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t bindtest_getpid(void);
int bindtest_missing(void);
int bindtest_fcntl_getfd(int fd);
bool bindtest_in_self(const void *p);

static void *call_getpid(void *arg)
{
	(void)arg;
	return (void *)(long)bindtest_getpid();
}

static void test_bind_first_use_from_threads(void **state)
{
	pthread_t t[8];
	void *ret;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, call_getpid, NULL), 0);
	}
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_int_equal((long)ret, (long)getpid());
	}
}

static void test_bind_variadic(void **state)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bindtest_fcntl_getfd(fd), FD_CLOEXEC);
	close(fd);
}

/* What dlsym(RTLD_NEXT) returned is checked against the library's own
 * image: its own functions and data are in it, libc's and the test's are
 * not. */
static void test_bind_circular_check(void **state)
{
	static int here;

	(void)state;
	assert_true(bindtest_in_self((const void *)bindtest_getpid));
	assert_true(bindtest_in_self((const void *)bindtest_in_self));
	assert_false(bindtest_in_self((const void *)getpid));
	assert_false(bindtest_in_self((const void *)&here));
}

static void test_bind_missing_symbol_aborts(void **state)
{
	int pipefd[2], status;
	char buf[512] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 2);
		bindtest_missing();
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "BTEST_ERROR("));
	assert_non_null(strstr(buf, "cwrap_no_such_symbol"));
	assert_non_null(strchr(buf, '\n'));
	assert_ptr_equal(strchr(buf, '\n'), buf + n - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_first_use_from_threads),
		cmocka_unit_test(test_bind_variadic),
		cmocka_unit_test(test_bind_circular_check),
		cmocka_unit_test(test_bind_missing_symbol_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
