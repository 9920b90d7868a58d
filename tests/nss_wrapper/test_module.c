/*
 * NSS_WRAPPER_MODULE_SO_PATH + NSS_WRAPPER_MODULE_FN_PREFIX: the test
 * module libnss_cwraptest.so (nss_cwraptest.c) is asked after the files,
 * for what they lack, as upstream does and Samba's selftest needs (winbind
 * maps uid 0 to DOMAIN/root, which must not shadow the file's root):
 * lookups by name and id, enumeration across both (files first), groups,
 * getgrouplist through the module's group enumeration (not its
 * initgroups_dyn, as upstream), ERANGE from the module, and hosts: the module's
 * gethostbyname2_r/gethostbyaddr_r after the file. The module's path comes in
 * CWRAPTEST_MODULE.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <grp.h>
#include <pwd.h>

#include "nwrap_test.h"

static void test_files_first(void **state)
{
	struct passwd *pw;
	struct group *gr;

	(void)state;
	assert_true(nt_wrapper_bool("nss_wrapper_enabled"));
	pw = getpwnam("moduser"); /* only in the module */
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 7001);
	assert_string_equal(pw->pw_gecos, "Module User");
	pw = getpwnam("shared"); /* in both: the files answer */
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 9999);
	assert_string_equal(pw->pw_gecos, "From the files");
	pw = getpwuid(7002); /* the module's "shared", by its uid */
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "shared");
	assert_string_equal(pw->pw_gecos, "From the module");
	pw = getpwnam("bob"); /* only in the files */
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 1000);
	pw = getpwuid(9999); /* the files' "shared" by uid */
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "shared");
	assert_null(getpwnam("nobody-anywhere"));
	assert_null(getpwuid(4242));

	gr = getgrnam("modextra");
	assert_non_null(gr);
	assert_int_equal(gr->gr_gid, 7003);
	assert_string_equal(gr->gr_mem[1], "bob");
	gr = getgrgid(1000);
	assert_non_null(gr);
	assert_string_equal(gr->gr_name, "users");
}

/* The module answers uid 0 and "root" too (as winbind does once it mapped
 * root): the file's root wins, by id and by name; the module's own name
 * still finds its record. */
static void test_root_from_files(void **state)
{
	struct passwd pw, *res;
	struct group *gr;
	char buf[1024];

	(void)state;
	assert_int_equal(getpwuid_r(0, &pw, buf, sizeof(buf), &res), 0);
	assert_ptr_equal(res, &pw);
	assert_string_equal(pw.pw_name, "root");
	assert_string_equal(pw.pw_gecos, "File root");
	assert_int_equal(getpwnam_r("root", &pw, buf, sizeof(buf), &res), 0);
	assert_ptr_equal(res, &pw);
	assert_int_equal(pw.pw_uid, 0);
	assert_string_equal(pw.pw_gecos, "File root");
	assert_int_equal(
	    getpwnam_r("CWRAPDOM/root", &pw, buf, sizeof(buf), &res), 0);
	assert_ptr_equal(res, &pw);
	assert_int_equal(pw.pw_uid, 0);
	assert_string_equal(pw.pw_gecos, "Module root");

	gr = getgrgid(0);
	assert_non_null(gr);
	assert_string_equal(gr->gr_name, "root");
	assert_null(gr->gr_mem[0]); /* the file's, without members */
	gr = getgrnam("root");
	assert_non_null(gr);
	assert_null(gr->gr_mem[0]);
	gr = getgrnam("CWRAPDOM/root");
	assert_non_null(gr);
	assert_string_equal(gr->gr_mem[0], "bob");
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

static void test_enumeration_files_then_module(void **state)
{
	static const char *const order[] = {
	    "bob", "root", "shared", "moduser", "shared", "CWRAPDOM/root"};
	static const char *const gorder[] = {
	    "users", "root", "staff", "modgroup", "modextra", "CWRAPDOM/root"};
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
	/* primary, then the files' groups, then the module's groups that
	 * list the user, each once; not the 4242 of its initgroups_dyn */
	assert_int_equal(getgrouplist("bob", 1000, g, &n), 4);
	assert_int_equal(g[0], 1000);
	assert_int_equal(g[1], 50);
	assert_int_equal(g[2], 7003);
	assert_int_equal(g[3], 0);
	n = 8;
	assert_int_equal(getgrouplist("moduser", 7001, g, &n), 3);
	assert_int_equal(g[0], 7001);
	assert_int_equal(g[1], 1000);
	assert_int_equal(g[2], 7003);
	n = 8;
	/* 50 is both the primary group and a files' group: once */
	assert_int_equal(getgrouplist("bob", 50, g, &n), 4);
	assert_int_equal(g[0], 50);
	assert_int_equal(g[1], 1000);
	assert_int_equal(g[2], 7003);
	assert_int_equal(g[3], 0);
}

static void test_module_hosts_after_file(void **state)
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
	h = gethostbyname("shared.cwrap.org"); /* the file before the module */
	assert_non_null(h);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.99");
	/* the file has mod.cwrap.org in IPv4 only: IPv6 from the module */
	h = gethostbyname("mod.cwrap.org");
	assert_non_null(h);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.55");
	h = gethostbyname2("mod.cwrap.org", AF_INET6);
	assert_non_null(h);
	assert_string_equal(
	    inet_ntop(AF_INET6, h->h_addr_list[0], a, sizeof(a)), "fd00::77");
	h = gethostbyname("file.cwrap.org"); /* only in the file */
	assert_non_null(h);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[0], a, sizeof(a)),
			    "127.0.0.98");

	/* getaddrinfo: a name the file has is the file's alone (upstream
	 * too); "mod" (an alias in the module only) is the module's */
	assert_int_equal(getaddrinfo("shared.cwrap.org", NULL, &hints, &res),
			 0);
	assert_null(res->ai_next);
	assert_string_equal(
	    inet_ntop(AF_INET,
		      &((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr,
		      a, sizeof(a)),
	    "127.0.0.99");
	freeaddrinfo(res);
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
	/* an address in both: the file's name */
	inet_pton(AF_INET, "127.0.0.78", &s4.sin_addr);
	h = gethostbyaddr(&s4.sin_addr, 4, AF_INET);
	assert_non_null(h);
	assert_string_equal(h->h_name, "fileside.cwrap.org");
	assert_int_equal(getnameinfo((const void *)&s4, sizeof(s4), host,
				     sizeof(host), NULL, 0, NI_NAMEREQD),
			 0);
	assert_string_equal(host, "fileside.cwrap.org");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files_first),
	    cmocka_unit_test(test_root_from_files),
	    cmocka_unit_test(test_module_erange),
	    cmocka_unit_test(test_enumeration_files_then_module),
	    cmocka_unit_test(test_getgrouplist_both),
	    cmocka_unit_test(test_module_hosts_after_file),
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
		"root:x:0:0:File root:/root:/bin/sh\n"
		"shared:x:9999:1000:From the files:/:/bin/sh\n",
		"NSS_WRAPPER_PASSWD");
	nt_file("group",
		"users:x:1000:bob,moduser\nroot:x:0:\nstaff:x:50:bob\n",
		"NSS_WRAPPER_GROUP");
	nt_file("hosts",
		"127.0.0.99 shared.cwrap.org\n127.0.0.98 file.cwrap.org\n"
		"127.0.0.78 fileside.cwrap.org\n127.0.0.55 mod.cwrap.org\n",
		"NSS_WRAPPER_HOSTS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
