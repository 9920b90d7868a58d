/*
 * UID_WRAPPER and UID_WRAPPER_ROOT say how a process starts: changing them
 * in a running process never changes its ids, and reaches only the
 * children it starts afterwards. The case that needs it is libssh's
 * torture_auth: fake root, setuid(5000), unsetenv("UID_WRAPPER_ROOT") so
 * that the ssh-agent it starts with system() runs as the real user, then
 * setuid(5000) again, which must succeed (getuid() is 5000 throughout).
 * Run twice (tests/uid_wrapper/CMakeLists.txt): started by ctest with
 * UID_WRAPPER_ROOT=1, and as if a wrapped shell had exec'd it (the
 * UID_WRAPPER_INITIAL_* of fake root given too). Children run the helper
 * uwrap_print_ids, whose line is compared with the real ids (those of
 * /proc/self/status, which never change).
 */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

extern char **environ;

#define ROOT_IDS "uid=0,0,0 gid=0,0,0 groups=0 initial=0\n"
#define USER_IDS "uid=5000,5000,5000 "

static char helper[4096];
static char real_prefix[128]; /* "uid=R,E,S gid=R,E,S " of the real ids */

enum how { SYSTEM, POPEN, SPAWN, FORK_EXECV };

/* The line the helper printed, started by `how` with this environment. */
static const char *child_ids(enum how how)
{
	static char out[512];
	char *dir = cwrap_test_mkdtemp("uwrap_libssh");
	char *path = cwrap_test_path(dir, "ids");
	char cmd[8300], *text;
	char *const argv[] = {helper, NULL};
	posix_spawn_file_actions_t fa;
	int fd, status = -1;
	pid_t pid;
	FILE *fp;

	out[0] = '\0';
	switch (how) {
	case SYSTEM:
		snprintf(cmd, sizeof(cmd), "'%s' > '%s'", helper, path);
		assert_int_equal(system(cmd), 0);
		break;
	case POPEN:
		fp = popen(helper, "r");
		assert_non_null(fp);
		assert_non_null(fgets(out, sizeof(out), fp));
		assert_int_equal(pclose(fp), 0);
		break;
	case SPAWN:
	case FORK_EXECV:
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
		break;
	}
	if (how != POPEN) {
		text = cwrap_test_read_file(path, NULL);
		assert_non_null(text);
		snprintf(out, sizeof(out), "%s", text);
		free(text);
	}
	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
	return out;
}

static void assert_real(const char *line)
{
	if (strncmp(line, real_prefix, strlen(real_prefix)) != 0) {
		fail_msg("child: %s, expected the real ids: %s", line,
			 real_prefix);
	}
}

static void assert_ids(uid_t uid)
{
	uid_t r, e, s;

	assert_int_equal(getuid(), uid);
	assert_int_equal(geteuid(), uid);
	assert_int_equal(getresuid(&r, &e, &s), 0);
	assert_int_equal(r, uid);
	assert_int_equal(e, uid);
	assert_int_equal(s, uid);
	assert_int_equal(uwrap_test_enabled(), 1);
}

/* Unsetting UID_WRAPPER keeps the process wrapped, with its ids; a child
 * started without it is not wrapped. */
static void test_unset_wrapper(void **state)
{
	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	assert_ids(0);
	assert_int_equal(setresuid(0, 1234, 0), 0);
	assert_int_equal(unsetenv("UID_WRAPPER"), 0);
	assert_int_equal(uwrap_test_enabled(), 1);
	assert_int_equal(geteuid(), 1234);
	assert_real(child_ids(SYSTEM));
	assert_real(child_ids(SPAWN));
	assert_real(child_ids(FORK_EXECV));
	assert_int_equal(seteuid(0), 0); /* the saved uid is still 0 */
	assert_int_equal(setenv("UID_WRAPPER", "1", 1), 0);
	assert_ids(0);
}

static int after_clearenv(void)
{
	CHILD_CHECK(clearenv() == 0);
	CHILD_CHECK(uwrap_test_enabled() == 1);
	CHILD_CHECK(getuid() == 0 && geteuid() == 0);
	CHILD_CHECK(setuid(77) == 0);
	CHILD_CHECK(getuid() == 77 && geteuid() == 77);
	return 0;
}

/* clearenv() (daemons do it before exec) changes no id either. */
static void test_clearenv(void **state)
{
	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	assert_true(uwrap_test_in_child(after_clearenv));
	assert_ids(0);
}

static void *thread_uid(void *arg)
{
	*(uid_t *)arg = getuid();
	return NULL;
}

/* libssh's torture_auth, step by step (as root and as a user alike). */
static void test_torture_auth(void **state)
{
	uid_t from_thread = 1;
	pthread_t t;

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	assert_ids(0);
	assert_string_equal(child_ids(SYSTEM), ROOT_IDS);

	assert_int_equal(setuid(5000), 0);
	assert_ids(5000);

	assert_int_equal(unsetenv("UID_WRAPPER_ROOT"), 0);
	assert_ids(5000);
	/* ssh-agent and ssh-add run as the real user */
	assert_real(child_ids(SYSTEM));
	assert_ids(5000);
	assert_real(child_ids(POPEN));
	assert_real(child_ids(SPAWN));
	/* the program's own fork() + exec: the current ids, as ever */
	assert_true(
	    strncmp(child_ids(FORK_EXECV), USER_IDS, strlen(USER_IDS)) == 0);
	assert_ids(5000);

	assert_int_equal(setuid(5000), 0);
	assert_ids(5000);
	/* a user for good: root is not given back */
	errno = 0;
	assert_int_equal(setuid(0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(pthread_create(&t, NULL, thread_uid, &from_thread), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(from_thread, 5000);

	/* set again: the next children start as root, this process stays */
	assert_int_equal(setenv("UID_WRAPPER_ROOT", "1", 1), 0);
	assert_string_equal(child_ids(SYSTEM), ROOT_IDS);
	assert_string_equal(child_ids(SPAWN), ROOT_IDS);
	assert_ids(5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unset_wrapper),
	    cmocka_unit_test(test_clearenv),
	    /* last: it leaves the process a user */
	    cmocka_unit_test(test_torture_auth),
	};
	const char *bin = getenv("CWRAP_TEST_BIN");
	unsigned uid[4], gid[4];

	snprintf(helper, sizeof(helper), "%s/uwrap_print_ids",
		 bin != NULL ? bin : ".");
	uwrap_test_real_ids("Uid:", uid);
	uwrap_test_real_ids("Gid:", gid);
	snprintf(real_prefix, sizeof(real_prefix), "uid=%u,%u,%u gid=%u,%u,%u ",
		 uid[0], uid[1], uid[2], gid[0], gid[1], gid[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
