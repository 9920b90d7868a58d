/*
 * nss_wrapper preloaded with none of its variables set: every call gives
 * what the real libc gives.
 */
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <unistd.h>

#include "nwrap_test.h"

static void test_not_enabled(void **state)
{
	(void)state;
	assert_false(nt_wrapper_bool("nss_wrapper_enabled"));
	assert_false(nt_wrapper_bool("nss_wrapper_hosts_enabled"));
	assert_false(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
}

static void test_same_as_libc(void **state)
{
	struct passwd *(*libc_getpwuid)(uid_t) =
	    (struct passwd * (*)(uid_t)) nt_libc("getpwuid");
	int (*libc_gethostname)(char *, size_t) =
	    (int (*)(char *, size_t))nt_libc("gethostname");
	struct passwd *pw;
	char *name;
	char h1[256], h2[256];
	struct addrinfo *res = NULL;

	(void)state;
	pw = libc_getpwuid(getuid());
	assert_non_null(pw);
	name = strdup(pw->pw_name);
	pw = getpwuid(getuid());
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, name);
	pw = getpwnam(name);
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, getuid());
	free(name);
	assert_non_null(getgrgid(0));

	assert_int_equal(libc_gethostname(h1, sizeof(h1)), 0);
	assert_int_equal(gethostname(h2, sizeof(h2)), 0);
	assert_string_equal(h1, h2);

	assert_int_equal(getaddrinfo("127.0.0.1", "80", NULL, &res), 0);
	freeaddrinfo(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_not_enabled),
	    cmocka_unit_test(test_same_as_libc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
