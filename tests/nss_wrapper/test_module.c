/*
 * NSS_WRAPPER_MODULE_SO_PATH + NSS_WRAPPER_MODULE_FN_PREFIX: the test
 * module libnss_cwraptest.so (nss_cwraptest.c) is asked before the files:
 * lookups, shadowing of a file user, enumeration across both, groups,
 * getgrouplist through the module's initgroups_dyn, ERANGE from the module,
 * and hosts: the module's gethostbyname2_r/gethostbyaddr_r before the file.
 * The module's path comes in CWRAPTEST_MODULE.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <grp.h>
#include <pwd.h>

#include "nwrap_test.h"

static void test_module_first(void **state)
{
	struct passwd *pw;
	struct group *gr;

	(void)state;
	assert_true(nt_wrapper_bool("nss_wrapper_enabled"));
	pw = getpwnam("moduser");
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 7001);
	assert_string_equal(pw->pw_gecos, "Module User");
	pw = getpwnam("shared"); /* in both: the module answers */
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 7002);
	pw = getpwnam("bob"); /* only in the files */
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 1000);
	pw = getpwuid(9999); /* the files' "shared" by uid */
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "shared");
	assert_null(getpwnam("nobody-anywhere"));

	gr = getgrnam("modextra");
	assert_non_null(gr);
	assert_int_equal(gr->gr_gid, 7003);
	assert_string_equal(gr->gr_mem[1], "bob");
	gr = getgrgid(1000);
	assert_non_null(gr);
	assert_string_equal(gr->gr_name, "users");
}

static void test_module_erange(void **state)
{
	struct passwd pw, *res;
	char buf[8];

	(void)state;
	assert_int_equal(getpwnam_r("moduser", &pw, buf, sizeof(buf), &res),
			 ERANGE);
	assert_null(res);
}

static void test_enumeration_module_then_files(void **state)
{
	static const char *const order[] = {"moduser", "shared", "bob",
					    "shared"};
	static const char *const gorder[] = {"modgroup", "modextra", "users"};
	struct passwd *pw;
	struct group *gr;
	size_t n = 0;

	(void)state;
	setpwent();
	while ((pw = getpwent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(order));
		assert_string_equal(pw->pw_name, order[n]);
		n++;
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(order));
	endpwent();
	n = 0;
	setgrent();
	while ((gr = getgrent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(gorder));
		assert_string_equal(gr->gr_name, gorder[n]);
		n++;
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(gorder));
	endgrent();
}

static void test_getgrouplist_both(void **state)
{
	gid_t g[8];
	int n = 8;

	(void)state;
	/* primary, then the module's groups, then the files' */
	assert_int_equal(getgrouplist("bob", 1000, g, &n), 2);
	assert_int_equal(g[0], 1000);
	assert_int_equal(g[1], 7003);
	n = 8;
	assert_int_equal(getgrouplist("moduser", 7001, g, &n), 3);
	assert_int_equal(g[0], 7001);
	assert_int_equal(g[1], 7003);
	assert_int_equal(g[2], 1000);
}

static void test_module_hosts_first(void **state)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_CANONNAME},
			*res, *ai;
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	char host[256], a[64];
	struct hostent *h;
	int n = 0;

	(void)state;
	h = gethostbyname("MOD");
	assert_non_null(h);
	assert_string_equal(h->h_name, "mod.cwrap.org");
	assert_string_equal(h->h_aliases[0], "mod");
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.77");
	h = gethostbyname("shared.cwrap.org"); /* module before the file */
	assert_non_null(h);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.78");
	h = gethostbyname("file.cwrap.org"); /* only in the file */
	assert_non_null(h);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.98");

	assert_int_equal(getaddrinfo("mod", "80", &hints, &res), 0);
	for (ai = res; ai != NULL; ai = ai->ai_next, n++) {
		assert_string_equal(ai->ai_canonname, "mod.cwrap.org");
	}
	assert_int_equal(n, 2);
	assert_int_equal(res->ai_family, AF_INET6);
	assert_int_equal(res->ai_next->ai_family, AF_INET);
	freeaddrinfo(res);
	hints.ai_family = AF_INET;
	assert_int_equal(getaddrinfo("file.cwrap.org", NULL, &hints, &res), 0);
	freeaddrinfo(res);

	inet_pton(AF_INET, "127.0.0.77", &s4.sin_addr);
	assert_int_equal(getnameinfo((const void *)&s4, sizeof(s4), host,
				     sizeof(host), NULL, 0, NI_NAMEREQD),
			 0);
	assert_string_equal(host, "mod.cwrap.org");
	h = gethostbyaddr(&s4.sin_addr, 4, AF_INET);
	assert_non_null(h);
	assert_string_equal(h->h_name, "mod.cwrap.org");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_module_first),
	    cmocka_unit_test(test_module_erange),
	    cmocka_unit_test(test_enumeration_module_then_files),
	    cmocka_unit_test(test_getgrouplist_both),
	    cmocka_unit_test(test_module_hosts_first),
	};
	const char *mod = getenv("CWRAPTEST_MODULE");

	if (mod == NULL) {
		fprintf(stderr, "CWRAPTEST_MODULE is not set\n");
		return 1;
	}
	setenv("NSS_WRAPPER_MODULE_SO_PATH", mod, 1);
	setenv("NSS_WRAPPER_MODULE_FN_PREFIX", "cwraptest", 1);
	nt_file("passwd",
		"bob:x:1000:1000:Bob:/home/bob:/bin/sh\n"
		"shared:x:9999:1000:From the files:/:/bin/sh\n",
		"NSS_WRAPPER_PASSWD");
	nt_file("group", "users:x:1000:bob,moduser\n", "NSS_WRAPPER_GROUP");
	nt_file("hosts",
		"127.0.0.99 shared.cwrap.org\n127.0.0.98 file.cwrap.org\n",
		"NSS_WRAPPER_HOSTS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
