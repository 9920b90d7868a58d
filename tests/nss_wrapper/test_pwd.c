/*
 * Users under the preloaded nss_wrapper: getpwnam/getpwuid and their _r
 * forms (buffer-size edges in exact-size heap buffers, so ASan sees any
 * overrun), the enumeration interleaved with lookups, a file replaced or
 * edited while the process runs, and a lookup in a forked child.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/wait.h>

#include "nwrap_test.h"

static const char *passwd_v1 =
    "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false\n"
    "root:x:65534:65532:Root user:/home/test/root:/bin/false\n"
    "# a comment\n"
    "\n"
    "alice:secret:1001:1000::/home/alice:/bin/sh\n"
    "bob:x:2000:2000:Second bob:/nowhere:/bin/false\n"
    "dup:x:1000:1:same uid as bob:/:/bin/sh\n"
    "broken:x:notanumber:1:bad uid:/:/bin/sh\n"
    "last:x:1002:1000:no newline:/:/bin/sh";

static char *passwd_path;

static void test_getpwnam(void **state)
{
	struct passwd *pw;

	(void)state;
	pw = getpwnam("bob");
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "bob");
	assert_string_equal(pw->pw_passwd, "x");
	assert_int_equal(pw->pw_uid, 1000);
	assert_int_equal(pw->pw_gid, 1000);
	assert_string_equal(pw->pw_gecos, "Bob Gecos");
	assert_string_equal(pw->pw_dir, "/home/test/bob");
	assert_string_equal(pw->pw_shell, "/bin/false");

	pw = getpwnam("alice");
	assert_non_null(pw);
	assert_string_equal(pw->pw_passwd, "secret");
	assert_string_equal(pw->pw_gecos, "");

	pw = getpwnam("last");
	assert_non_null(pw);
	assert_string_equal(pw->pw_shell, "/bin/sh");

	assert_null(getpwnam("nosuchuser"));
	assert_null(getpwnam("broken")); /* malformed line skipped */
	assert_null(getpwnam(""));
	/* a system user is not visible: the files replace the system's */
	assert_null(getpwnam("daemon"));
}

static void test_getpwuid(void **state)
{
	struct passwd *pw;

	(void)state;
	pw = getpwuid(1001);
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "alice");
	pw = getpwuid(1000); /* the first line with that uid wins */
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "bob");
	pw = getpwuid(65534);
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "root");
	assert_null(getpwuid(0));
	assert_null(getpwuid(2000 + 7));
}

static void test_getpwnam_r_sizes(void **state)
{
	/* "bob" "x" "Bob Gecos" "/home/test/bob" "/bin/false" + NULs */
	const size_t need = 4 + 2 + 10 + 15 + 11;
	struct passwd pw, *res;

	(void)state;
	for (size_t len = 0; len <= need + 1; len++) {
		char *buf = malloc(len > 0 ? len : 1);
		int rc;

		res = (struct passwd *)1;
		rc = getpwnam_r("bob", &pw, len > 0 ? buf : buf, len, &res);
		if (len < need) {
			assert_int_equal(rc, ERANGE);
			assert_null(res);
		} else {
			assert_int_equal(rc, 0);
			assert_ptr_equal(res, &pw);
			assert_string_equal(pw.pw_shell, "/bin/false");
			assert_string_equal(pw.pw_dir, "/home/test/bob");
		}
		free(buf);
	}
	{
		char buf[256];

		res = (struct passwd *)1;
		assert_int_equal(
		    getpwnam_r("nosuch", &pw, buf, sizeof(buf), &res), 0);
		assert_null(res);
		res = (struct passwd *)1;
		assert_int_equal(getpwuid_r(4242, &pw, buf, sizeof(buf), &res),
				 0);
		assert_null(res);
		assert_int_equal(getpwuid_r(1001, &pw, buf, sizeof(buf), &res),
				 0);
		assert_string_equal(res->pw_name, "alice");
		assert_int_equal(getpwuid_r(1001, &pw, buf, 5, &res), ERANGE);
		assert_null(res);
	}
}

static const char *const order[] = {"bob", "root", "alice",
				    "bob", "dup",  "last"};

static void test_enumeration_interleaved(void **state)
{
	struct passwd *pw;
	size_t n = 0;

	(void)state;
	setpwent();
	while ((pw = getpwent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(order));
		assert_string_equal(pw->pw_name, order[n]);
		n++;
		/* lookups in between do not move the enumeration */
		assert_non_null(getpwnam("alice"));
		assert_non_null(getpwuid(1002));
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(order));
	assert_null(getpwent());
	endpwent();

	/* without setpwent, after endpwent: from the start again */
	pw = getpwent();
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "bob");
	endpwent();
}

static void test_getpwent_r_erange_does_not_advance(void **state)
{
#ifndef HAVE_GETPWENT_R
	(void)state;
	skip(); /* the C library has no getpwent_r (musl) */
#else
	struct passwd pw, *res;
	char small[8], big[512];

	(void)state;
	setpwent();
	assert_int_equal(getpwent_r(&pw, small, sizeof(small), &res), ERANGE);
	assert_null(res);
	assert_int_equal(getpwent_r(&pw, big, sizeof(big), &res), 0);
	assert_string_equal(res->pw_name, "bob");
	assert_int_equal(getpwent_r(&pw, big, sizeof(big), &res), 0);
	assert_string_equal(res->pw_name, "root");
	for (size_t i = 2; i < CWRAP_ARRAY_SIZE(order); i++) {
		assert_int_equal(getpwent_r(&pw, big, sizeof(big), &res), 0);
	}
	assert_int_equal(getpwent_r(&pw, big, sizeof(big), &res), ENOENT);
	assert_null(res);
	endpwent();
#endif
}

static void test_reload_rename_and_in_place(void **state)
{
	(void)state;
	assert_null(getpwnam("carol"));
	nt_replace(passwd_path,
		   "carol:x:3000:3000:Carol:/home/carol:/bin/sh\n");
	assert_non_null(getpwnam("carol"));
	assert_null(getpwnam("bob"));

	/* edited in place, same size, immediately */
	cwrap_test_write_file(passwd_path,
			      "david:x:3000:3000:Carol:/home/carol:/bin/sh\n");
	assert_null(getpwnam("carol"));
	assert_non_null(getpwnam("david"));

	/* removed: nothing, then back */
	unlink(passwd_path);
	assert_null(getpwnam("david"));
	nt_replace(passwd_path, passwd_v1);
	assert_non_null(getpwnam("bob"));
}

static void test_lookup_in_forked_child(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(getpwnam("bob"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct passwd *pw = getpwnam("alice");

		_exit(pw != NULL && pw->pw_uid == 1001 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* An application that closes every descriptor (a daemon) takes the one
 * the library keeps on the file; the number may then name another file.
 * Lookups go on, changes are still seen, and the application's file is
 * never closed by the library. */
static void test_application_closes_our_descriptor(void **state)
{
	char *other = nt_file("other", "not a passwd file\n", NULL);
	int fds[8];

	(void)state;
	assert_non_null(getpwnam("bob"));
	for (int fd = 3; fd < 64; fd++) {
		close(fd);
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(fds); i++) {
		fds[i] = open(other, O_RDONLY);
		assert_true(fds[i] >= 0);
	}
	assert_non_null(getpwnam("bob"));
	nt_replace(passwd_path, "erin:x:5000:5000::/:/bin/sh\n");
	assert_non_null(getpwnam("erin"));
	assert_null(getpwnam("bob"));
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(fds); i++) {
		char c;

		assert_int_equal(pread(fds[i], &c, 1, 0), 1); /* still open */
		assert_int_equal(c, 'n');
		close(fds[i]);
	}
	nt_replace(passwd_path, passwd_v1);
	assert_non_null(getpwnam("bob"));
}

static void test_enabled(void **state)
{
	(void)state;
	assert_true(nt_wrapper_bool("nss_wrapper_enabled"));
	assert_false(nt_wrapper_bool("nss_wrapper_hosts_enabled"));
	assert_false(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_enabled),
	    cmocka_unit_test(test_getpwnam),
	    cmocka_unit_test(test_getpwuid),
	    cmocka_unit_test(test_getpwnam_r_sizes),
	    cmocka_unit_test(test_enumeration_interleaved),
	    cmocka_unit_test(test_getpwent_r_erange_does_not_advance),
	    cmocka_unit_test(test_lookup_in_forked_child),
	    cmocka_unit_test(test_reload_rename_and_in_place),
	    cmocka_unit_test(test_application_closes_our_descriptor),
	};

	passwd_path = nt_file("passwd", passwd_v1, "NSS_WRAPPER_PASSWD");
	nt_file("group", "users:x:1000:alice,bob\n", "NSS_WRAPPER_GROUP");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
