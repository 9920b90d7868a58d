/*
 * priv_wrapper's logic linked directly: the list parser (separators,
 * blanks, ALL, unknown names), the variables as read (flags, lists, one
 * line per bad value, not per call) and the decisions of what a disabled
 * call may fake: for each option and argument the kernel refuses, the
 * request goes to the kernel instead.
 */
#include "pwrap.h"
#include "pwrap_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* ---- the list parser ---- */

struct unknowns {
	char names[8][64];
	int n;
};

static void collect(const char *name, size_t len, void *ctx)
{
	struct unknowns *u = ctx;

	assert_true(len < sizeof(u->names[0]));
	if (u->n < 8) {
		memcpy(u->names[u->n], name, len);
		u->names[u->n][len] = '\0';
	}
	u->n++;
}

static uint32_t prctl_list(const char *v, struct unknowns *u)
{
	memset(u, 0, sizeof(*u));
	return pwrap_parse_list(v, pwrap_prctl_names, pwrap_prctl_names_count,
				collect, u);
}

static uint32_t rlimit_list(const char *v, struct unknowns *u)
{
	memset(u, 0, sizeof(*u));
	return pwrap_parse_list(v, pwrap_rlimit_names, pwrap_rlimit_names_count,
				collect, u);
}

#define PR_ALL (PWRAP_PR_SECCOMP | PWRAP_PR_NO_NEW_PRIVS | PWRAP_PR_DUMPABLE)

static void test_parse_prctl(void **state)
{
	struct unknowns u;

	(void)state;
	assert_int_equal(prctl_list(NULL, &u), 0);
	assert_int_equal(prctl_list("", &u), 0);
	assert_int_equal(prctl_list("ALL", &u), PR_ALL);
	assert_int_equal(prctl_list(" ALL\n", &u), PR_ALL);
	assert_int_equal(prctl_list("PR_SET_SECCOMP", &u), PWRAP_PR_SECCOMP);
	assert_int_equal(prctl_list("PR_SET_SECCOMP|PR_SET_DUMPABLE", &u),
			 PWRAP_PR_SECCOMP | PWRAP_PR_DUMPABLE);
	assert_int_equal(prctl_list("PR_SET_NO_NEW_PRIVS,PR_SET_DUMPABLE", &u),
			 PWRAP_PR_NO_NEW_PRIVS | PWRAP_PR_DUMPABLE);
	assert_int_equal(
	    prctl_list(
		" PR_SET_SECCOMP , PR_SET_NO_NEW_PRIVS |\tPR_SET_DUMPABLE", &u),
	    PR_ALL);
	assert_int_equal(u.n, 0);
	/* empty items are nothing, not unknown names */
	assert_int_equal(prctl_list("|,| ,|PR_SET_DUMPABLE||", &u),
			 PWRAP_PR_DUMPABLE);
	assert_int_equal(u.n, 0);
	/* ALL inside a list is every name too */
	assert_int_equal(prctl_list("PR_SET_DUMPABLE|ALL", &u), PR_ALL);
	/* duplicates are harmless */
	assert_int_equal(prctl_list("PR_SET_DUMPABLE,PR_SET_DUMPABLE", &u),
			 PWRAP_PR_DUMPABLE);
	assert_int_equal(u.n, 0);
}

static void test_parse_unknown(void **state)
{
	struct unknowns u;

	(void)state;
	/* names are the constants' own, exactly */
	assert_int_equal(prctl_list("all", &u), 0);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.names[0], "all");
	assert_int_equal(
	    prctl_list("PR_SET_SECCOMPX| PR_SET_NAME ,PR_SET_DUMPABLE", &u),
	    PWRAP_PR_DUMPABLE);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.names[0], "PR_SET_SECCOMPX");
	assert_string_equal(u.names[1], "PR_SET_NAME");
	/* a blank does not separate */
	assert_int_equal(prctl_list("PR_SET_SECCOMP PR_SET_DUMPABLE", &u), 0);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.names[0], "PR_SET_SECCOMP PR_SET_DUMPABLE");
	/* a prctl name is not an rlimit name */
	assert_int_equal(rlimit_list("PR_SET_DUMPABLE,RLIMIT_CORE", &u),
			 1u << RLIMIT_CORE);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.names[0], "PR_SET_DUMPABLE");
	/* no callback: the known names still count */
	assert_int_equal(pwrap_parse_list("x|PR_SET_SECCOMP", pwrap_prctl_names,
					  pwrap_prctl_names_count, NULL, NULL),
			 PWRAP_PR_SECCOMP);
}

static void test_parse_rlimit(void **state)
{
	struct unknowns u;
	uint32_t all = 0;

	(void)state;
	/* every name stands for its own resource, each once */
	for (size_t i = 0; i < pwrap_rlimit_names_count; i++) {
		uint32_t b = rlimit_list(pwrap_rlimit_names[i].name, &u);

		assert_int_equal(u.n, 0);
		assert_int_equal(b, pwrap_rlimit_names[i].bits);
		assert_int_equal(__builtin_popcount(b), 1);
		assert_int_equal(all & b, 0);
		all |= b;
	}
	assert_int_equal(pwrap_rlimit_names_count, RLIMIT_NLIMITS);
	assert_int_equal(all, (1u << RLIMIT_NLIMITS) - 1);
	assert_int_equal(rlimit_list("ALL", &u), all);
	assert_int_equal(rlimit_list("RLIMIT_NOFILE", &u), 1u << RLIMIT_NOFILE);
	assert_int_equal(
	    rlimit_list("RLIMIT_NOFILE|RLIMIT_CORE,RLIMIT_NPROC", &u),
	    (1u << RLIMIT_NOFILE) | (1u << RLIMIT_CORE) | (1u << RLIMIT_NPROC));
	assert_int_equal(rlimit_list("NOFILE, RLIMIT_FOO", &u), 0);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.names[0], "NOFILE");
	assert_string_equal(u.names[1], "RLIMIT_FOO");
}

/* ---- the variables ---- */

static void read_conf(void *arg)
{
	pwrap_conf_read(arg);
}

static char *read_conf_stderr(struct pwrap_conf *c)
{
	return pwrap_test_stderr(read_conf, c);
}

static void test_conf_read(void **state)
{
	struct pwrap_conf c;
	char *err;

	(void)state;
	/* without PRIV_WRAPPER=1 nothing is disabled, and the lists are
	 * not even read */
	pwrap_test_env("1", "ALL,BOGUS", "ALL");
	unsetenv("PRIV_WRAPPER");
	err = read_conf_stderr(&c);
	assert_string_equal(err, "");
	free(err);
	assert_false(c.enabled);
	assert_false(c.chroot_disabled);
	assert_int_equal(c.prctl, 0);
	assert_int_equal(c.rlimit, 0);

	pwrap_test_env("1", "PR_SET_DUMPABLE", "RLIMIT_NOFILE");
	err = read_conf_stderr(&c);
	assert_string_equal(err, "");
	free(err);
	assert_true(c.enabled);
	assert_true(c.chroot_disabled);
	assert_int_equal(c.prctl, PWRAP_PR_DUMPABLE);
	assert_int_equal(c.rlimit, 1u << RLIMIT_NOFILE);

	pwrap_test_env("0", NULL, "");
	read_conf(&c);
	assert_true(c.enabled);
	assert_false(c.chroot_disabled);
	assert_int_equal(c.prctl, 0);
	assert_int_equal(c.rlimit, 0);
	pwrap_test_env_clear();
}

static void test_conf_bad_values(void **state)
{
	struct pwrap_conf c;
	char *err;

	(void)state;
	/* a flag that is neither 0 nor 1: one line, off */
	pwrap_test_env("yes", NULL, NULL);
	err = read_conf_stderr(&c);
	assert_true(c.enabled);
	assert_false(c.chroot_disabled);
	assert_int_equal(pwrap_test_count(err, "\n"), 1);
	assert_non_null(strstr(err, "PRIV_WRAPPER_CHROOT_DISABLE='yes'"));
	assert_non_null(strstr(err, "PRIVWRAP_ERROR"));
	free(err);
	/* once for that value, not at every read */
	err = read_conf_stderr(&c);
	assert_string_equal(err, "");
	free(err);

	setenv("PRIV_WRAPPER", "true", 1);
	err = read_conf_stderr(&c);
	assert_false(c.enabled);
	assert_int_equal(pwrap_test_count(err, "\n"), 1);
	assert_non_null(strstr(err, "PRIV_WRAPPER='true'"));
	free(err);

	/* an unknown name in a list: one line naming it and the variable;
	 * the known names still count */
	pwrap_test_env(NULL, "PR_SET_DUMPABLE|PR_SET_BOGUS", "RLIMIT_NOFILE");
	err = read_conf_stderr(&c);
	assert_int_equal(c.prctl, PWRAP_PR_DUMPABLE);
	assert_int_equal(pwrap_test_count(err, "\n"), 1);
	assert_non_null(strstr(err, "PRIV_WRAPPER_PRCTL_DISABLE"));
	assert_non_null(strstr(err, "'PR_SET_BOGUS'"));
	free(err);
	err = read_conf_stderr(&c);
	assert_string_equal(err, "");
	free(err);

	/* two unknown names: a line each; a control byte stays one line */
	setenv("PRIV_WRAPPER_SETRLIMIT_DISABLE", "RLIMIT_X\n2,RLIMIT_CORE,Y",
	       1);
	err = read_conf_stderr(&c);
	assert_int_equal(c.rlimit, 1u << RLIMIT_CORE);
	assert_int_equal(pwrap_test_count(err, "\n"), 2);
	assert_non_null(strstr(err, "'RLIMIT_X?2'"));
	assert_non_null(strstr(err, "'Y'"));
	free(err);
	pwrap_test_env_clear();
}

/* pwrap_conf(): each thread's copy follows setenv() at once */
static void test_conf_follows_env(void **state)
{
	(void)state;
	pwrap_test_env_clear();
	assert_false(pwrap_conf()->enabled);
	pwrap_test_env("1", "PR_SET_SECCOMP", NULL);
	assert_true(pwrap_conf()->enabled);
	assert_true(pwrap_conf()->chroot_disabled);
	assert_int_equal(pwrap_conf()->prctl, PWRAP_PR_SECCOMP);
	unsetenv("PRIV_WRAPPER_CHROOT_DISABLE");
	assert_false(pwrap_conf()->chroot_disabled);
	unsetenv("PRIV_WRAPPER");
	assert_false(pwrap_conf()->enabled);
	assert_int_equal(pwrap_conf()->prctl, 0);
	pwrap_test_env_clear();
}

/* ---- decisions ---- */

static void test_prctl_fake(void **state)
{
	const uint32_t all = PR_ALL;

	(void)state;
	assert_true(pwrap_prctl_fake(all, PR_SET_DUMPABLE, 0, 0, 0, 0));
	assert_true(pwrap_prctl_fake(all, PR_SET_DUMPABLE, 1, 7, 7, 7));
	assert_false(pwrap_prctl_fake(all, PR_SET_DUMPABLE, 2, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_DUMPABLE, -1UL, 0, 0, 0));
	assert_true(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 2, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 1, 0, 1, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 1));
	/* strict: a3 ignored; filter: a program needed */
	assert_true(pwrap_prctl_fake(all, PR_SET_SECCOMP, 1, 0, 0, 0));
	assert_true(pwrap_prctl_fake(all, PR_SET_SECCOMP, 1, 1234, 0, 0));
	assert_true(pwrap_prctl_fake(all, PR_SET_SECCOMP, 2, 1234, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_SECCOMP, 2, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_SECCOMP, 0, 1234, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_SECCOMP, 3, 1234, 0, 0));
	/* only what is listed */
	assert_false(
	    pwrap_prctl_fake(PWRAP_PR_SECCOMP, PR_SET_DUMPABLE, 0, 0, 0, 0));
	assert_false(
	    pwrap_prctl_fake(PWRAP_PR_DUMPABLE, PR_SET_SECCOMP, 1, 0, 0, 0));
	assert_false(pwrap_prctl_fake(PWRAP_PR_DUMPABLE, PR_SET_NO_NEW_PRIVS, 1,
				      0, 0, 0));
	assert_false(pwrap_prctl_fake(0, PR_SET_DUMPABLE, 0, 0, 0, 0));
	/* never another option, nor the readers */
	assert_false(pwrap_prctl_fake(all, PR_GET_DUMPABLE, 0, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_GET_SECCOMP, 0, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_NAME, 0, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, PR_SET_PDEATHSIG, 9, 0, 0, 0));
	assert_false(pwrap_prctl_fake(all, -1, 0, 0, 0, 0));
}

static void test_seccomp_verdict(void **state)
{
	const uint32_t s = PWRAP_PR_SECCOMP;

	(void)state;
	/* SECCOMP_SET_MODE_STRICT: flags 0 and no args only (libseccomp's
	 * probe, flags 1, must see the kernel's EINVAL) */
	assert_int_equal(pwrap_seccomp_verdict(s, 0, 0, 0), PWRAP_FAKE);
	assert_int_equal(pwrap_seccomp_verdict(s, 0, 1, 0), PWRAP_PASS);
	assert_int_equal(pwrap_seccomp_verdict(s, 0, 0, 8), PWRAP_PASS);
	/* SECCOMP_SET_MODE_FILTER */
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 0, 8), PWRAP_FAKE);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 1, 8), PWRAP_FAKE);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 0x17, 8), PWRAP_FAKE);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 0, 0), PWRAP_PASS);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 1, 0), PWRAP_PASS);
	/* a listener, and flags not known here: never the kernel's */
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 8, 8), PWRAP_EINVAL);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 0x20, 8), PWRAP_EINVAL);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 0x40, 8), PWRAP_EINVAL);
	assert_int_equal(pwrap_seccomp_verdict(s, 1, 1UL << 31, 0),
			 PWRAP_EINVAL);
	/* the readers, other operations, and seccomp not listed */
	assert_int_equal(pwrap_seccomp_verdict(s, 2, 0, 8), PWRAP_PASS);
	assert_int_equal(pwrap_seccomp_verdict(s, 3, 0, 8), PWRAP_PASS);
	assert_int_equal(pwrap_seccomp_verdict(s, 99, 0, 8), PWRAP_PASS);
	assert_int_equal(
	    pwrap_seccomp_verdict(PWRAP_PR_NO_NEW_PRIVS | PWRAP_PR_DUMPABLE, 1,
				  0, 8),
	    PWRAP_PASS);
}

static void test_rlimit_fake(void **state)
{
	const uint32_t nofile = 1u << RLIMIT_NOFILE;
	uint64_t l64[2] = {10, 20};
	uint32_t l32[2] = {10, 20};

	(void)state;
	assert_true(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l64, 8));
	assert_true(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l32, 4));
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_CORE, l64, 8));
	assert_false(pwrap_rlimit_fake(0, RLIMIT_NOFILE, l64, 8));
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, NULL, 8));
	assert_false(pwrap_rlimit_fake(~0u, -1, l64, 8));
	assert_false(pwrap_rlimit_fake(~0u, 32, l64, 8));
	assert_false(pwrap_rlimit_fake(~0u, 100000, l64, 8));
	/* equal is fine, soft above hard is the kernel's EINVAL */
	l64[0] = 20;
	assert_true(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l64, 8));
	l64[0] = 21;
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l64, 8));
	l32[0] = 21;
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l32, 4));
	/* infinity is the largest value, in either width */
	l64[0] = 5;
	l64[1] = UINT64_MAX;
	assert_true(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l64, 8));
	l64[0] = UINT64_MAX;
	l64[1] = 5;
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l64, 8));
	l32[0] = UINT32_MAX;
	l32[1] = UINT32_MAX;
	assert_true(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l32, 4));
	l32[1] = UINT32_MAX - 1;
	assert_false(pwrap_rlimit_fake(nofile, RLIMIT_NOFILE, l32, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_prctl),
	    cmocka_unit_test(test_parse_unknown),
	    cmocka_unit_test(test_parse_rlimit),
	    cmocka_unit_test(test_conf_read),
	    cmocka_unit_test(test_conf_bad_values),
	    cmocka_unit_test(test_conf_follows_env),
	    cmocka_unit_test(test_prctl_fake),
	    cmocka_unit_test(test_seccomp_verdict),
	    cmocka_unit_test(test_rlimit_fake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
