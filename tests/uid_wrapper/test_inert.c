/*
 * uid_wrapper preloaded but UID_WRAPPER unset: every call reaches libc
 * unchanged (the real ids, as /proc/self/status shows them), threads,
 * syscall() and exec work, and the UID_WRAPPER_INITIAL_* variables are
 * left alone.
 */
#include <grp.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

static void *thread_uid(void *arg)
{
	*(uid_t *)arg = getuid();
	return NULL;
}

static void test_inert(void **state)
{
	unsigned uid[4], gid[4];
	uid_t r, e, s, from_thread = 12345;
	gid_t groups[256];
	char real_groups[2048], mine[2048] = "";
	pthread_t t;
	int n, i;

	(void)state;
	assert_int_equal(uwrap_test_enabled(), 0);
	uwrap_test_real_ids("Uid:", uid);
	uwrap_test_real_ids("Gid:", gid);
	assert_int_equal(getuid(), uid[0]);
	assert_int_equal(geteuid(), uid[1]);
	assert_int_equal(getgid(), gid[0]);
	assert_int_equal(getegid(), gid[1]);
	assert_int_equal(getresuid(&r, &e, &s), 0);
	assert_int_equal(s, uid[2]);
	assert_int_equal(syscall(UWRAP_SYS(getuid)), uid[0]);
	assert_int_equal(syscall(SYS_getpid), getpid());

	n = getgroups(256, groups);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		snprintf(mine + strlen(mine), sizeof(mine) - strlen(mine),
			 "%s%u", i > 0 ? " " : "", groups[i]);
	}
	uwrap_test_real_groups(real_groups, sizeof(real_groups));
	assert_string_equal(mine, real_groups);

	if (uid[1] != 0) {
		/* the real kernel says no */
		assert_int_equal(setuid(0), -1);
		assert_int_equal(errno, EPERM);
		assert_int_equal(setgroups(0, NULL), -1);
		assert_int_equal(errno, EPERM);
	}
	/* a no-op change is allowed for anybody */
	assert_int_equal(setresuid(-1, -1, -1), 0);

	assert_int_equal(pthread_create(&t, NULL, thread_uid, &from_thread), 0);
	pthread_join(t, NULL);
	assert_int_equal(from_thread, uid[0]);

	/* not ours to remove while disabled */
	assert_non_null(getenv("UID_WRAPPER_INITIAL_RUID"));
}

static void test_exec_inert(void **state)
{
	char cmd[4200];
	FILE *p;
	char out[256] = "";

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	snprintf(cmd, sizeof(cmd), "%s/uwrap_print_ids",
		 getenv("CWRAP_TEST_BIN"));
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_int_equal(pclose(p), 0);
	/* the variable is still there in the child, and ignored */
	assert_non_null(strstr(out, "initial=1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inert),
	    cmocka_unit_test(test_exec_inert),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
