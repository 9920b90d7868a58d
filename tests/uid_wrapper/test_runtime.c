/*
 * A process started without UID_WRAPPER stays without it: setting
 * UID_WRAPPER=1 and UID_WRAPPER_ROOT=1 later (as a cmocka setup might)
 * neither wraps it nor changes any thread's ids, and
 * uid_wrapper_enabled() keeps answering what the process started with.
 * The children it starts afterwards start from the environment they are
 * given: wrapped, as fake root. (test_libssh.c: a process started with
 * the variables that changes them.) No set*id() call is made here: the
 * process is not wrapped, and as root they would be real.
 */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

extern char **environ;

#define ROOT_IDS "uid=0,0,0 gid=0,0,0 groups=0 initial=0\n"

static char helper[4096];
static unsigned real_uid[4];

enum how { SYSTEM, SPAWN, FORK_EXECV };

/* The line the helper printed, started by `how` with this environment. */
static char *child_ids(enum how how)
{
	static char out[512];
	char *dir = cwrap_test_mkdtemp("uwrap_runtime");
	char *path = cwrap_test_path(dir, "ids");
	char cmd[8300], *text;
	char *const argv[] = {helper, NULL};
	posix_spawn_file_actions_t fa;
	int fd, status = -1;
	pid_t pid;

	if (how == SYSTEM) {
		snprintf(cmd, sizeof(cmd), "'%s' > '%s'", helper, path);
		assert_int_equal(system(cmd), 0);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		if (how == SPAWN) {
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_adddup2(&fa, fd, 1);
			assert_int_equal(
			    posix_spawn(&pid, helper, &fa, NULL, argv, environ),
			    0);
			posix_spawn_file_actions_destroy(&fa);
		} else {
			pid = fork();
			assert_true(pid >= 0);
			if (pid == 0) {
				dup2(fd, 1);
				execv(helper, argv);
				_exit(127);
			}
		}
		close(fd);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	text = cwrap_test_read_file(path, NULL);
	assert_non_null(text);
	snprintf(out, sizeof(out), "%s", text);
	free(text);
	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
	return out;
}

static void assert_real_ids(void)
{
	uid_t r, e, s;

	assert_int_equal(uwrap_test_enabled(), 0);
	assert_int_equal(getuid(), real_uid[0]);
	assert_int_equal(geteuid(), real_uid[1]);
	assert_int_equal(getresuid(&r, &e, &s), 0);
	assert_int_equal(s, real_uid[2]);
	assert_int_equal(syscall(UWRAP_SYS(getuid)), real_uid[0]);
}

static void *thread_ids(void *arg)
{
	uid_t *out = arg;

	out[0] = getuid();
	out[1] = geteuid();
	return NULL;
}

static void test_set_later(void **state)
{
	uid_t from_thread[2] = {12345, 12345};
	char line[64];
	pthread_t t;

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	assert_real_ids();
	assert_int_equal(setenv("UID_WRAPPER", "1", 1), 0);
	assert_int_equal(setenv("UID_WRAPPER_ROOT", "1", 1), 0);
	assert_real_ids();
	assert_int_equal(pthread_create(&t, NULL, thread_ids, from_thread), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(from_thread[0], real_uid[0]);
	assert_int_equal(from_thread[1], real_uid[1]);

	/* the children are given the variables: wrapped, fake root */
	assert_string_equal(child_ids(SYSTEM), ROOT_IDS);
	assert_string_equal(child_ids(SPAWN), ROOT_IDS);
	assert_string_equal(child_ids(FORK_EXECV), ROOT_IDS);
	assert_real_ids();

	/* unset again: children as the real user */
	assert_int_equal(unsetenv("UID_WRAPPER"), 0);
	assert_int_equal(unsetenv("UID_WRAPPER_ROOT"), 0);
	snprintf(line, sizeof(line), "uid=%u,%u,%u ", real_uid[0], real_uid[1],
		 real_uid[2]);
	assert_true(strncmp(child_ids(SYSTEM), line, strlen(line)) == 0);
	assert_real_ids();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_later),
	};
	const char *bin = getenv("CWRAP_TEST_BIN");

	snprintf(helper, sizeof(helper), "%s/uwrap_print_ids",
		 bin != NULL ? bin : ".");
	uwrap_test_real_ids("Uid:", real_uid);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
