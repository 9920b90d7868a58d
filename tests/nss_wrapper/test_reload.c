/*
 * Every file is read again on the next lookup after it is edited: group
 * (a new member, a changed gid), hosts (a new address for a name, a name
 * moved to another line) and shadow (a changed field), each edited in
 * place at once (same size, within the file timestamp's tick) and
 * replaced by rename. passwd is covered by test_pwd and test_watch.
 */
#include <arpa/inet.h>
#include <grp.h>
#include <netdb.h>
#include <shadow.h>

#include "nwrap_test.h"

static char *group_path, *hosts_path, *shadow_path;

static bool member(const char *group, const char *user)
{
	struct group *gr = getgrnam(group);

	if (gr == NULL) {
		return false;
	}
	for (char **m = gr->gr_mem; *m != NULL; m++) {
		if (strcmp(*m, user) == 0) {
			return true;
		}
	}
	return false;
}

static void test_group(void **state)
{
	(void)state;
	assert_true(member("staff", "ann"));
	assert_false(member("staff", "bo"));
	cwrap_test_write_file(group_path, "staff:x:500:bo\n"); /* in place */
	assert_false(member("staff", "ann"));
	assert_true(member("staff", "bo"));
	nt_replace(group_path, "staff:x:501:ann,bo\nwheel:x:10:ann\n");
	assert_int_equal(getgrnam("staff")->gr_gid, 501);
	assert_true(member("wheel", "ann"));
	assert_non_null(getgrgid(10));
}

static const char *addr_of(const char *name)
{
	static char buf[INET_ADDRSTRLEN];
	struct hostent *h = gethostbyname(name);

	if (h == NULL) {
		return "none";
	}
	return inet_ntop(AF_INET, h->h_addr_list[0], buf, sizeof(buf));
}

static void test_hosts(void **state)
{
	(void)state;
	assert_string_equal(addr_of("db.example"), "10.0.0.1");
	cwrap_test_write_file(hosts_path, "10.0.0.2 db.example\n");
	assert_string_equal(addr_of("db.example"), "10.0.0.2");
	nt_replace(hosts_path, "10.0.0.3 web.example\n10.0.0.4 db.example\n");
	assert_string_equal(addr_of("db.example"), "10.0.0.4");
	assert_string_equal(addr_of("web.example"), "10.0.0.3");
	{
		struct addrinfo hints = {.ai_family = AF_INET}, *ai;
		char buf[INET_ADDRSTRLEN];

		assert_int_equal(getaddrinfo("web.example", NULL, &hints, &ai),
				 0);
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)ai->ai_addr)->sin_addr, buf,
			  sizeof(buf));
		assert_string_equal(buf, "10.0.0.3");
		freeaddrinfo(ai);
	}
}

static void test_shadow(void **state)
{
	(void)state;
	assert_string_equal(getspnam("ann")->sp_pwdp, "$6$a$old");
	cwrap_test_write_file(shadow_path, "ann:$6$a$new:19000:0:99999:7:::\n");
	assert_string_equal(getspnam("ann")->sp_pwdp, "$6$a$new");
	nt_replace(shadow_path, "bo:!:1:2:3:4:5:6:\n");
	assert_null(getspnam("ann"));
	assert_int_equal(getspnam("bo")->sp_lstchg, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_group),
	    cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_shadow),
	};

	nt_file("passwd",
		"ann:x:1000:500::/:/bin/sh\nbo:x:1001:500::/:/bin/sh\n",
		"NSS_WRAPPER_PASSWD");
	group_path = nt_file("group", "staff:x:500:ann\n", "NSS_WRAPPER_GROUP");
	hosts_path =
	    nt_file("hosts", "10.0.0.1 db.example\n", "NSS_WRAPPER_HOSTS");
	shadow_path = nt_file("shadow", "ann:$6$a$old:19000:0:99999:7:::\n",
			      "NSS_WRAPPER_SHADOW");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
