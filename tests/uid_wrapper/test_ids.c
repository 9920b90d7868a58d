/*
 * Every id call under UID_WRAPPER=1 UID_WRAPPER_ROOT=1 (preloaded):
 * starting ids, each set*id call and its kernel rule seen through the
 * wrapped libc, groups, the fortified getgroups, initgroups,
 * UID_WRAPPER_MYUID, and proof that no real privilege changes. Tests that
 * give up fake root for good run in a forked child.
 */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

int __getgroups_chk(int size, gid_t list[], size_t listlen);

static void assert_res(uid_t r, uid_t e, uid_t s)
{
	uid_t a, b, c;

	assert_int_equal(getresuid(&a, &b, &c), 0);
	assert_int_equal(a, r);
	assert_int_equal(b, e);
	assert_int_equal(c, s);
	assert_int_equal(getuid(), r);
	assert_int_equal(geteuid(), e);
}

static void assert_resg(gid_t r, gid_t e, gid_t s)
{
	gid_t a, b, c;

	assert_int_equal(getresgid(&a, &b, &c), 0);
	assert_int_equal(a, r);
	assert_int_equal(b, e);
	assert_int_equal(c, s);
	assert_int_equal(getgid(), r);
	assert_int_equal(getegid(), e);
}

static void back_to_root(void)
{
	assert_int_equal(setresuid(0, 0, 0), 0);
	assert_int_equal(setresgid(0, 0, 0), 0);
	gid_t zero = 0;
	assert_int_equal(setgroups(1, &zero), 0);
}

static void test_enabled_and_root(void **state)
{
	gid_t g[4];

	(void)state;
	assert_int_equal(uwrap_test_enabled(), 1);
	assert_res(0, 0, 0);
	assert_resg(0, 0, 0);
	assert_int_equal(getgroups(0, NULL), 1);
	assert_int_equal(getgroups(4, g), 1);
	assert_int_equal(g[0], 0);
}

static int child_setuid_drops_all(void)
{
	uid_t r, e, s;
	gid_t g = 5;

	CHILD_CHECK(setuid(1000) == 0);
	CHILD_CHECK(getresuid(&r, &e, &s) == 0 && r == 1000 && e == 1000 &&
		    s == 1000);
	errno = 0;
	CHILD_CHECK(setuid(0) == -1 && errno == EPERM);
	CHILD_CHECK(seteuid(0) == -1 && errno == EPERM);
	CHILD_CHECK(setreuid(-1, 0) == -1 && errno == EPERM);
	CHILD_CHECK(setresuid(-1, -1, 0) == -1 && errno == EPERM);
	CHILD_CHECK(setgid(5) == -1 && errno == EPERM);
	CHILD_CHECK(setgroups(1, &g) == -1 && errno == EPERM);
	CHILD_CHECK(setuid(1000) == 0); /* its own id: allowed */
	return 0;
}

static void test_setuid_as_root_sets_all(void **state)
{
	(void)state;
	assert_true(uwrap_test_in_child(child_setuid_drops_all));
	assert_res(0, 0, 0); /* the parent is a different process */
}

static void test_seteuid_and_back(void **state)
{
	(void)state;
	assert_int_equal(seteuid(1000), 0);
	assert_res(0, 1000, 0);
	/* CAP_SETGID went with euid 0 */
	assert_int_equal(setgid(5), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(seteuid(2000), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(seteuid(0), 0);
	assert_res(0, 0, 0);
	assert_int_equal(seteuid(-1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(setuid(-1), -1);
	assert_int_equal(errno, EINVAL);
	back_to_root();
}

static void test_setreuid_saved_id(void **state)
{
	(void)state;
	/* euid set to something other than the real id: saved follows */
	assert_int_equal(setreuid(-1, 1000), 0);
	assert_res(0, 1000, 1000);
	/* back to the real id: saved stays */
	assert_int_equal(setreuid(-1, 0), 0);
	assert_res(0, 0, 1000);
	assert_int_equal(setreuid(1000, 0), 0);
	assert_res(1000, 0, 0);
	assert_int_equal(setreuid(0, 0), 0);
	assert_res(0, 0, 0);
	back_to_root();
}

static void test_setresuid_rules(void **state)
{
	(void)state;
	assert_int_equal(setresuid(1000, 2000, 0), 0);
	assert_res(1000, 2000, 0);
	/* unprivileged, but only ids it holds */
	assert_int_equal(setresuid(2000, 1000, 0), 0);
	assert_res(2000, 1000, 0);
	assert_int_equal(setresuid(3000, -1, -1), -1);
	assert_int_equal(errno, EPERM);
	assert_res(2000, 1000, 0);
	assert_int_equal(setresuid(0, 0, 0), 0);
	back_to_root();
}

static void test_gid_calls(void **state)
{
	(void)state;
	assert_int_equal(setgid(100), 0);
	assert_resg(100, 100, 100);
	assert_int_equal(setegid(0), 0); /* privileged: euid is 0 */
	assert_resg(100, 0, 100);
	assert_int_equal(setregid(200, 300), 0);
	assert_resg(200, 300, 300);
	assert_int_equal(setresgid(1, 2, 3), 0);
	assert_resg(1, 2, 3);
	assert_int_equal(setegid(-1), -1);
	assert_int_equal(errno, EINVAL);
	/* unprivileged: gids it holds only */
	assert_int_equal(setresuid(0, 1000, 0), 0);
	assert_int_equal(setresgid(3, 1, 2), 0);
	assert_resg(3, 1, 2);
	assert_int_equal(setgid(7), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(setgid(2), 0); /* the saved gid */
	assert_resg(3, 2, 2);
	assert_int_equal(setregid(9, -1), -1);
	assert_int_equal(errno, EPERM);
	back_to_root();
	assert_resg(0, 0, 0);
}

/* volatile: the compiler rightly warns about a constant -1 count */
static volatile int minus_one = -1;

static void test_groups(void **state)
{
	gid_t set[3] = {30, 10, 20}, got[8];

	(void)state;
	assert_int_equal(setgroups(3, set), 0);
	assert_int_equal(getgroups(0, NULL), 3);
	assert_int_equal(getgroups(8, got), 3);
	/* the kernel keeps them sorted */
	assert_int_equal(got[0], 10);
	assert_int_equal(got[1], 20);
	assert_int_equal(got[2], 30);
	assert_int_equal(getgroups(2, got), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(getgroups(minus_one, got), -1);
	assert_int_equal(errno, EINVAL);
#ifdef HAVE___CHK_FAIL
	assert_int_equal(__getgroups_chk(3, got, sizeof(got)), 3);
#endif
	assert_int_equal(setgroups(65537, set), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(setgroups(0, NULL), 0);
	assert_int_equal(getgroups(0, NULL), 0);
	assert_int_equal(getgroups(8, got), 0);
	/* unprivileged */
	assert_int_equal(seteuid(1000), 0);
	assert_int_equal(setgroups(1, set), -1);
	assert_int_equal(errno, EPERM);
	back_to_root();
}

#ifdef HAVE___CHK_FAIL
static int child_chk_overflow(void)
{
	gid_t two[2];

	/* fortified getgroups with a list too small for the count: abort */
	__getgroups_chk(3, two, sizeof(two));
	return 0;
}

static void test_getgroups_chk_overflow(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 2); /* "buffer overflow detected" */
		_exit(child_chk_overflow());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}
#else
static void test_getgroups_chk_overflow(void **state)
{
	(void)state;
	skip(); /* the C library has no fortified entry points (musl) */
}
#endif

static void test_getres_efault(void **state)
{
	uid_t a, b;

	(void)state;
	assert_int_equal(getresuid(&a, &b, NULL), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(getresgid(NULL, &a, &b), -1);
	assert_int_equal(errno, EFAULT);
}

static void test_initgroups(void **state)
{
	struct passwd *pw = getpwuid(0);
	gid_t want[256], got[256];
	int nwant = 256, ngot, i;

	(void)state;
	assert_non_null(pw);
	assert_true(getgrouplist(pw->pw_name, 4242, want, &nwant) >= 0);
	assert_int_equal(initgroups(pw->pw_name, 4242), 0);
	ngot = getgroups(256, got);
	assert_int_equal(ngot, nwant);
	for (i = 0; i < ngot; i++) {
		/* both sorted the same way? 4242 must be in there */
		bool found = false;
		int j;

		for (j = 0; j < nwant; j++) {
			found = found || want[j] == got[i];
		}
		assert_true(found);
	}
	assert_int_equal(seteuid(1000), 0);
	assert_int_equal(initgroups(pw->pw_name, 0), -1);
	assert_int_equal(errno, EPERM);
	back_to_root();
}

extern char **environ;

static void test_myuid(void **state)
{
	static char putme[] = "UID_WRAPPER_MYUID=1";
	char *mine[] = {putme, NULL};
	char **saved = environ;

	(void)state;
	assert_int_equal(geteuid(), 0);
	setenv("UID_WRAPPER_MYUID", "1", 1);
	assert_int_equal(geteuid(), uwrap_test_real_uid());
	assert_int_equal(getuid(), 0); /* only geteuid */
	unsetenv("UID_WRAPPER_MYUID");
	assert_int_equal(geteuid(), 0);
	putenv(putme);
	assert_int_equal(geteuid(), uwrap_test_real_uid());
	unsetenv("UID_WRAPPER_MYUID");
	assert_int_equal(geteuid(), 0);
	/* a program that replaces its environment wholesale */
	environ = mine;
	assert_int_equal(geteuid(), uwrap_test_real_uid());
	environ = saved;
	assert_int_equal(geteuid(), 0);
	setenv("UID_WRAPPER_MYUID", "0", 1);
	assert_int_equal(geteuid(), 0);
	unsetenv("UID_WRAPPER_MYUID");
}

static void assert_real_unchanged(const unsigned uid0[4],
				  const unsigned gid0[4], const char *groups0)
{
	unsigned uid[4], gid[4];
	char groups[4096];

	uwrap_test_real_ids("Uid:", uid);
	uwrap_test_real_ids("Gid:", gid);
	uwrap_test_real_groups(groups, sizeof(groups));
	assert_memory_equal(uid, uid0, sizeof(uid));
	assert_memory_equal(gid, gid0, sizeof(gid));
	assert_string_equal(groups, groups0);
}

static void test_no_real_privilege(void **state)
{
	unsigned uid0[4], gid0[4];
	char groups0[4096];
	char *dir = cwrap_test_mkdtemp("uwrap_priv");
	char *file = cwrap_test_path(dir, "made-as-fake-root");
	char *file2 = cwrap_test_path(dir, "made-as-fake-1000");
	gid_t g[2] = {1, 2};
	struct stat st;
	int fd;

	(void)state;
	uwrap_test_real_ids("Uid:", uid0);
	uwrap_test_real_ids("Gid:", gid0);
	uwrap_test_real_groups(groups0, sizeof(groups0));

	cwrap_test_write_file(file, "x");
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_uid, uid0[1]); /* the real euid */
	assert_int_equal(st.st_gid, gid0[1]);

	assert_int_equal(setgroups(2, g), 0);
	assert_int_equal(setresgid(1234, 1234, 1234), 0);
	assert_int_equal(setresuid(1000, 1000, 0), 0);
	assert_real_unchanged(uid0, gid0, groups0);
	cwrap_test_write_file(file2, "y");
	assert_int_equal(stat(file2, &st), 0);
	assert_int_equal(st.st_uid, uid0[1]);
	assert_int_equal(st.st_gid, gid0[1]);
	back_to_root();
	assert_real_unchanged(uid0, gid0, groups0);

	if (uid0[1] != 0) {
		/* fake root cannot read what the real user cannot */
		fd = open("/etc/shadow", O_RDONLY);
		assert_int_equal(fd, -1);
		assert_int_equal(errno, EACCES);
	}
	cwrap_test_rmtree(dir);
	free(file);
	free(file2);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_enabled_and_root),
	    cmocka_unit_test(test_setuid_as_root_sets_all),
	    cmocka_unit_test(test_seteuid_and_back),
	    cmocka_unit_test(test_setreuid_saved_id),
	    cmocka_unit_test(test_setresuid_rules),
	    cmocka_unit_test(test_gid_calls),
	    cmocka_unit_test(test_groups),
	    cmocka_unit_test(test_getgroups_chk_overflow),
	    cmocka_unit_test(test_getres_efault),
	    cmocka_unit_test(test_initgroups),
	    cmocka_unit_test(test_myuid),
	    cmocka_unit_test(test_no_real_privilege),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
