/*
 * Variables read when they are used, under the preloaded nss_wrapper: a
 * program that sets NSS_WRAPPER_PASSWD/_GROUP/_HOSTS/_SHADOW after its
 * first lookup, points them at other files or unsets them gets the new
 * answer on the next call, *_enabled() follows, and lookups running in
 * other threads while the environment changes see one file or the other,
 * never freed memory (TSan and ASan builds check that).
 */
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <shadow.h>

#include "nwrap_test.h"

static char *pw_a, *pw_b, *gr_a, *hosts_a, *hosts_b, *shadow_a;

static void test_set_after_start(void **state)
{
	struct passwd *(*real_getpwnam)(const char *) =
	    (struct passwd * (*)(const char *)) nt_libc("getpwnam");
	struct passwd *pw;
	struct group *gr;

	(void)state;
	/* nothing set yet: the system's answer */
	assert_false(nt_wrapper_bool("nss_wrapper_enabled"));
	assert_null(getpwnam("alice"));
	assert_non_null(getpwnam("root"));

	setenv("NSS_WRAPPER_PASSWD", pw_a, 1);
	setenv("NSS_WRAPPER_GROUP", gr_a, 1);
	assert_true(nt_wrapper_bool("nss_wrapper_enabled"));
	pw = getpwnam("alice");
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 1001);
	assert_null(getpwnam("root"));
	gr = getgrnam("staff");
	assert_non_null(gr);
	assert_string_equal(gr->gr_mem[0], "alice");

	/* another file under the same variable */
	setenv("NSS_WRAPPER_PASSWD", pw_b, 1);
	pw = getpwnam("alice");
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 2001);
	assert_null(getpwnam("bob"));

	/* and back: the first reading is reused */
	setenv("NSS_WRAPPER_PASSWD", pw_a, 1);
	assert_int_equal(getpwnam("alice")->pw_uid, 1001);
	assert_non_null(getpwnam("bob"));

	unsetenv("NSS_WRAPPER_PASSWD");
	assert_false(nt_wrapper_bool("nss_wrapper_enabled"));
	pw = getpwnam("root");
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, real_getpwnam("root")->pw_uid);
	unsetenv("NSS_WRAPPER_GROUP");
}

static void test_hosts_and_shadow(void **state)
{
	struct hostent *h;

	(void)state;
	assert_false(nt_wrapper_bool("nss_wrapper_hosts_enabled"));
	setenv("NSS_WRAPPER_HOSTS_ONLY", "1", 1);
	setenv("NSS_WRAPPER_HOSTS", hosts_a, 1);
	assert_true(nt_wrapper_bool("nss_wrapper_hosts_enabled"));
	h = gethostbyname("server.cwrap.org");
	assert_non_null(h);
	assert_int_equal((unsigned char)h->h_addr_list[0][3], 10);
	setenv("NSS_WRAPPER_HOSTS", hosts_b, 1);
	h = gethostbyname("server.cwrap.org");
	assert_non_null(h);
	assert_int_equal((unsigned char)h->h_addr_list[0][3], 20);
	unsetenv("NSS_WRAPPER_HOSTS");
	unsetenv("NSS_WRAPPER_HOSTS_ONLY");
	assert_false(nt_wrapper_bool("nss_wrapper_hosts_enabled"));

	assert_false(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
	setenv("NSS_WRAPPER_SHADOW", shadow_a, 1);
	assert_true(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
	assert_non_null(getspnam("alice"));
	unsetenv("NSS_WRAPPER_SHADOW");
	assert_false(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
}

/* The entries the readers flip between, replaced in place by putenv()
 * (no array reallocation, so getenv() in other threads stays valid). */
static char env_a[4096], env_b[4096];
static int stop; /* atomic */

static void *reader(void *arg)
{
	long bad = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct passwd pw, *res = NULL;
		char buf[1024];
		int rc = getpwnam_r("alice", &pw, buf, sizeof(buf), &res);

		if (rc != 0 || res == NULL ||
		    (pw.pw_uid != 1001 && pw.pw_uid != 2001)) {
			bad++;
		}
	}
	return (void *)bad;
}

static void test_threads_while_changing(void **state)
{
	pthread_t t[3];

	(void)state;
	snprintf(env_a, sizeof(env_a), "NSS_WRAPPER_PASSWD=%s", pw_a);
	snprintf(env_b, sizeof(env_b), "NSS_WRAPPER_PASSWD=%s", pw_b);
	putenv(env_a);
	setenv("NSS_WRAPPER_GROUP", gr_a, 1);
	assert_non_null(getpwnam("alice"));
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(t); i++) {
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	}
	for (int i = 0; i < 2000; i++) {
		putenv(i % 2 ? env_a : env_b);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(t); i++) {
		void *bad;

		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_ptr_equal(bad, NULL);
	}
	unsetenv("NSS_WRAPPER_PASSWD");
	unsetenv("NSS_WRAPPER_GROUP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_after_start),
	    cmocka_unit_test(test_hosts_and_shadow),
	    cmocka_unit_test(test_threads_while_changing),
	};

	/* the files exist, the variables are not set yet */
	pw_a = nt_file("passwd.a",
		       "alice:x:1001:1000:Alice:/home/alice:/bin/sh\n"
		       "bob:x:1002:1000:Bob:/home/bob:/bin/sh\n",
		       NULL);
	pw_b =
	    nt_file("passwd.b", "alice:x:2001:1000:Alice B:/b:/bin/sh\n", NULL);
	gr_a = nt_file("group.a", "staff:x:1000:alice,bob\n", NULL);
	hosts_a = nt_file("hosts.a", "127.0.0.10 server.cwrap.org\n", NULL);
	hosts_b = nt_file("hosts.b", "127.0.0.20 server.cwrap.org\n", NULL);
	shadow_a = nt_file("shadow.a", "alice:!:19000:0:99999:7:::\n", NULL);
	unsetenv("NSS_WRAPPER_PASSWD");
	unsetenv("NSS_WRAPPER_GROUP");
	unsetenv("NSS_WRAPPER_HOSTS");
	unsetenv("NSS_WRAPPER_SHADOW");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
