/*
 * Groups under the preloaded nss_wrapper: getgrnam/getgrgid and their _r
 * forms at every buffer size, the enumeration interleaved with lookups,
 * getgrouplist (order, duplicates, a short array) and initgroups (which
 * calls setgroups: it succeeds for real root only, without uid_wrapper).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>

#include "nwrap_test.h"

static void assert_members(const struct group *gr, const char *const *want)
{
	size_t i = 0;

	for (; want[i] != NULL; i++) {
		assert_non_null(gr->gr_mem[i]);
		assert_string_equal(gr->gr_mem[i], want[i]);
	}
	assert_null(gr->gr_mem[i]);
}

static void test_getgrnam_getgrgid(void **state)
{
	static const char *const users[] = {"alice", "bob", NULL};
	static const char *const none[] = {NULL};
	static const char *const admins[] = {"alice", "carol", NULL};
	struct group *gr;

	(void)state;
	gr = getgrnam("users");
	assert_non_null(gr);
	assert_string_equal(gr->gr_name, "users");
	assert_string_equal(gr->gr_passwd, "x");
	assert_int_equal(gr->gr_gid, 1000);
	assert_members(gr, users);

	gr = getgrgid(65532);
	assert_non_null(gr);
	assert_string_equal(gr->gr_name, "root");
	assert_members(gr, none);

	gr = getgrnam("admins"); /* "alice,,carol," : empty members dropped */
	assert_non_null(gr);
	assert_members(gr, admins);

	gr = getgrnam("nomembers"); /* "nomembers:x:5000" without the 4th ':' */
	assert_non_null(gr);
	assert_int_equal(gr->gr_gid, 5000);
	assert_members(gr, none);

	assert_null(getgrnam("nosuchgroup"));
	assert_null(getgrgid(12345));
	assert_null(getgrnam("badgid"));
}

static void test_getgrnam_r_every_size(void **state)
{
	struct group gr, *res;
	size_t first_ok = 0;

	(void)state;
	for (size_t len = 0; len < 256; len++) {
		char *buf = malloc(len > 0 ? len : 1);
		int rc = getgrnam_r("users", &gr, buf, len, &res);

		if (rc == 0) {
			if (first_ok == 0) {
				first_ok = len;
			}
			assert_ptr_equal(res, &gr);
			assert_string_equal(gr.gr_mem[1], "bob");
			assert_null(gr.gr_mem[2]);
			assert_string_equal(gr.gr_name, "users");
		} else {
			assert_int_equal(rc, ERANGE);
			assert_null(res);
			assert_int_equal(first_ok,
					 0); /* no ERANGE after success */
		}
		free(buf);
	}
	/* strings (6+2+6+4) and 3 pointers, plus at most one alignment pad */
	assert_true(first_ok >= 18 + 3 * sizeof(char *));
	assert_true(first_ok < 18 + 4 * sizeof(char *));
	{
		char buf[512];

		assert_int_equal(getgrgid_r(3000, &gr, buf, sizeof(buf), &res),
				 0);
		assert_string_equal(res->gr_name, "admins");
		assert_int_equal(getgrgid_r(3001, &gr, buf, sizeof(buf), &res),
				 0);
		assert_null(res);
	}
}

static void test_enumeration_interleaved(void **state)
{
	static const char *const order[] = {"users", "root", "admins",
					    "nomembers", "users2"};
	struct group *gr;
	size_t n = 0;

	(void)state;
	setgrent();
	while ((gr = getgrent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(order));
		assert_string_equal(gr->gr_name, order[n]);
		n++;
		assert_non_null(getgrnam("admins"));
		assert_non_null(getpwnam("alice"));
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(order));
	endgrent();
#ifdef HAVE_GETGRENT_R /* (musl has none) */
	{
		struct group g, *res;
		char buf[512];

		setgrent();
		assert_int_equal(getgrent_r(&g, buf, 4, &res), ERANGE);
		assert_int_equal(getgrent_r(&g, buf, sizeof(buf), &res), 0);
		assert_string_equal(res->gr_name, "users");
		endgrent();
	}
#endif
}

static void test_getgrouplist(void **state)
{
	gid_t groups[16];
	int n;

	(void)state;
	n = CWRAP_ARRAY_SIZE(groups);
	/* primary first, then file order; users2 repeats alice's gid 1000 */
	assert_int_equal(getgrouplist("alice", 1000, groups, &n), 2);
	assert_int_equal(n, 2);
	assert_int_equal(groups[0], 1000);
	assert_int_equal(groups[1], 3000);

	n = CWRAP_ARRAY_SIZE(groups);
	assert_int_equal(getgrouplist("alice", 7, groups, &n), 3);
	assert_int_equal(groups[0], 7);
	assert_int_equal(groups[1], 1000);
	assert_int_equal(groups[2], 3000);

	/* too short: -1, the count needed, and as many as fit */
	n = 1;
	groups[1] = 999;
	assert_int_equal(getgrouplist("alice", 7, groups, &n), -1);
	assert_int_equal(n, 3);
	assert_int_equal(groups[0], 7);
	assert_int_equal(groups[1], 999);

	n = CWRAP_ARRAY_SIZE(groups);
	assert_int_equal(getgrouplist("nobody-at-all", 42, groups, &n), 1);
	assert_int_equal(groups[0], 42);
}

static void test_initgroups(void **state)
{
	int rc;

	(void)state;
	rc = initgroups("alice", 1000);
	if (getuid() == 0) {
		gid_t g[8];

		assert_int_equal(rc, 0);
		assert_int_equal(getgroups(8, g), 2);
		assert_int_equal(g[0], 1000);
		assert_int_equal(g[1], 3000);
	} else {
		/* the real setgroups refuses: no uid_wrapper here */
		assert_int_equal(rc, -1);
		assert_int_equal(errno, EPERM);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_getgrnam_getgrgid),
	    cmocka_unit_test(test_getgrnam_r_every_size),
	    cmocka_unit_test(test_enumeration_interleaved),
	    cmocka_unit_test(test_getgrouplist),
	    cmocka_unit_test(test_initgroups),
	};

	nt_file("passwd", "alice:x:1001:1000::/home/alice:/bin/sh\n",
		"NSS_WRAPPER_PASSWD");
	nt_file("group",
		"users:x:1000:alice,bob\r\n"
		"root:x:65532:\n"
		"admins:x:3000:alice,,carol,\n"
		"badgid:x:-5:alice\n"
		"nomembers:x:5000\n"
		"users2:x:1000:alice\n",
		"NSS_WRAPPER_GROUP");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
