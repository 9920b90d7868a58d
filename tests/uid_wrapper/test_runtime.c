/*
 * UID_WRAPPER and UID_WRAPPER_ROOT read when they are used: a program
 * started without them (a cmocka suite whose setup sets them, whose
 * teardown unsets them) is wrapped from its next call on, gets a fresh
 * identity each time it enables the wrapper again or changes
 * UID_WRAPPER_ROOT, and is inert again once UID_WRAPPER is unset;
 * uid_wrapper_enabled() answers for the current environment. Other changes
 * of the environment leave the ids alone. Nothing real changes.
 */
#include <grp.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

static unsigned real_uid(void)
{
	unsigned uid[4];

	uwrap_test_real_ids("Uid:", uid);
	return uid[0];
}

static void enable(bool root)
{
	setenv("UID_WRAPPER", "1", 1);
	if (root) {
		setenv("UID_WRAPPER_ROOT", "1", 1);
	} else {
		unsetenv("UID_WRAPPER_ROOT");
	}
}

static void disable(void)
{
	unsetenv("UID_WRAPPER");
	unsetenv("UID_WRAPPER_ROOT");
}

static void test_starts_inert(void **state)
{
	(void)state;
	assert_int_equal(uwrap_test_enabled(), 0);
	assert_int_equal(getuid(), real_uid());
}

static void test_enabled_at_runtime(void **state)
{
	gid_t g[8];

	(void)state;
	enable(true);
	assert_int_equal(uwrap_test_enabled(), 1);
	assert_int_equal(getuid(), 0);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getgid(), 0);
	assert_int_equal(getgroups(8, g), 1);
	assert_int_equal(g[0], 0);
	assert_int_equal(setuid(1234), 0);
	assert_int_equal(getuid(), 1234);
	assert_int_not_equal(real_uid(), 1234); /* nothing real changed */
	disable();
	assert_int_equal(uwrap_test_enabled(), 0);
	assert_int_equal(getuid(), real_uid());
	/* the next test's setup: root again, not what the last one left */
	enable(true);
	assert_int_equal(getuid(), 0);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(setgid(77), 0);
	assert_int_equal(getgid(), 77);
	disable();
}

static void test_root_changed_while_enabled(void **state)
{
	uid_t r, e, s;

	(void)state;
	enable(false);
	assert_int_equal(getuid(), real_uid());
	setenv("UID_WRAPPER_ROOT", "1", 1);
	assert_int_equal(getresuid(&r, &e, &s), 0);
	assert_int_equal(r, 0);
	assert_int_equal(e, 0);
	assert_int_equal(s, 0);
	unsetenv("UID_WRAPPER_ROOT");
	assert_int_equal(getuid(), real_uid());
	disable();
}

static void test_other_changes_keep_the_ids(void **state)
{
	(void)state;
	enable(true);
	assert_int_equal(setreuid(1000, 1001), 0);
	setenv("SOMETHING_ELSE", "1", 1);
	static char another[] = "ANOTHER=2";

	putenv(another);
	setenv("UID_WRAPPER", "1", 1); /* the same value again */
	assert_int_equal(getuid(), 1000);
	assert_int_equal(geteuid(), 1001);
	assert_int_equal(uwrap_test_enabled(), 1);
	disable();
}

static void *thread_ids(void *arg)
{
	uid_t *out = arg;
	int *go = (int *)(out + 2);

	while (__atomic_load_n(go, __ATOMIC_ACQUIRE) == 0) {
	}
	out[0] = getuid();
	out[1] = geteuid();
	return NULL;
}

/* A thread that exists when the wrapper is enabled takes the new ids. */
static void test_thread_sees_enable(void **state)
{
	uid_t buf[4] = {1, 1, 0, 0};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, thread_ids, buf), 0);
	enable(true);
	assert_int_equal(setresuid(2000, 2001, 2002), 0);
	__atomic_store_n((int *)(buf + 2), 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(buf[0], 2000);
	assert_int_equal(buf[1], 2001);
	disable();
}

/* clearenv() (as some daemons do before exec) turns the wrapper off. */
static void test_clearenv(void **state)
{
	(void)state;
	enable(true);
	assert_int_equal(getuid(), 0);
	assert_int_equal(clearenv(), 0);
	assert_int_equal(uwrap_test_enabled(), 0);
	assert_int_equal(getuid(), real_uid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_starts_inert),
	    cmocka_unit_test(test_enabled_at_runtime),
	    cmocka_unit_test(test_root_changed_while_enabled),
	    cmocka_unit_test(test_other_changes_keep_the_ids),
	    cmocka_unit_test(test_thread_sees_enable),
	    cmocka_unit_test(test_clearenv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
