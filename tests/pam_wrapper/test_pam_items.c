/*
 * pam_get_items and pam_set_items through libpamtest, under pam_wrapper:
 * the items a module sees become PAM environment variables, and process
 * environment variables become items, in every hook.
 */
#include "pamw_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
    "PAM_SERVICE",  "PAM_USER",		"PAM_USER_PROMPT", "PAM_TTY",
    "PAM_RUSER",    "PAM_RHOST",	"PAM_AUTHTOK",	   "PAM_OLDAUTHTOK",
    "PAM_XDISPLAY", "PAM_AUTHTOK_TYPE",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void unset_items(void)
{
	for (size_t i = 0; i < NNAMES; i++) {
		unsetenv(names[i]);
	}
}

#define BOTH_ALL                                                               \
	"auth     required @M@/pam_set_items.so\n"                             \
	"auth     required @M@/pam_get_items.so\n"                             \
	"account  required @M@/pam_set_items.so\n"                             \
	"account  required @M@/pam_get_items.so\n"                             \
	"password required @M@/pam_set_items.so\n"                             \
	"password required @M@/pam_get_items.so\n"                             \
	"session  required @M@/pam_set_items.so\n"                             \
	"session  required @M@/pam_get_items.so\n"

static void test_get_items_alone(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	};
	char **env;

	pamw_test_service(t, "items",
			  "account required @M@/pam_get_items.so\n");
	assert_int_equal(run_pamtest("items", "alice", NULL, tc, NULL),
			 PAMTEST_ERR_OK);
	env = tc[1].case_out.envlist;
	assert_string_equal(pamw_test_env(env, "PAM_SERVICE"), "items");
	assert_string_equal(pamw_test_env(env, "PAM_USER"), "alice");
	/* items that are not set are not exported */
	assert_null(pamw_test_env(env, "PAM_RHOST"));
	assert_null(pamw_test_env(env, "PAM_AUTHTOK"));
	assert_null(env[2]);
	pamtest_free_env(env);
}

/* Each hook sets the items from the environment and exports them again:
 * values given in one variable come back in the PAM environment, in the
 * modules' order. (PAM_SERVICE keeps the service's name: libpam loads
 * the stack of a service set that way at the next call.) */
static void item_value(size_t i, char *value, size_t cap)
{
	if (strcmp(names[i], "PAM_SERVICE") == 0) {
		snprintf(value, cap, "items");
	} else {
		snprintf(value, cap, "v-%s", names[i]);
	}
}

static void test_round_trip(void **state)
{
	struct pamw_test *t = *state;
	enum pamtest_ops ops[] = {PAMTEST_AUTHENTICATE,	 PAMTEST_SETCRED,
				  PAMTEST_ACCOUNT,	 PAMTEST_OPEN_SESSION,
				  PAMTEST_CLOSE_SESSION, PAMTEST_CHAUTHTOK};

	pamw_test_service(t, "items", BOTH_ALL);
	for (size_t i = 0; i < NNAMES; i++) {
		char value[64];

		item_value(i, value, sizeof(value));
		setenv(names[i], value, 1);
	}
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		struct pam_testcase tc[] = {
		    pam_test(ops[k], PAM_SUCCESS),
		    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
		};
		char **env;

		assert_int_equal(run_pamtest("items", "alice", NULL, tc, NULL),
				 PAMTEST_ERR_OK);
		env = tc[1].case_out.envlist;
		for (size_t i = 0; i < NNAMES; i++) {
			char line[128], value[64];

			item_value(i, value, sizeof(value));
			snprintf(line, sizeof(line), "%s=%s", names[i], value);
			assert_non_null(env[i]);
			assert_string_equal(env[i], line);
		}
		assert_null(env[NNAMES]);
		pamtest_free_env(env);
	}
	unset_items();
}

/* An item set from the environment is what the next module sees: an
 * empty value too; an unset variable leaves the item alone. */
static void test_set_items_feed_matrix(void **state)
{
	struct pamw_test *t = *state;
	const char *bobs[] = {"pw", NULL};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	};
	struct pamtest_conv_data conv = {.in_echo_off = bobs};

	pamw_test_service(t, "items",
			  "auth required @M@/pam_set_items.so\n"
			  "auth required @M@/pam_matrix.so passdb=@P@\n"
			  "auth required @M@/pam_get_items.so\n");
	setenv("PAM_USER", "bob", 1);
	setenv("PAM_RHOST", "", 1);
	assert_int_equal(run_pamtest("items", "alice", &conv, tc, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(pamw_test_env(tc[1].case_out.envlist, "PAM_USER"),
			    "bob");
	assert_string_equal(pamw_test_env(tc[1].case_out.envlist, "PAM_RHOST"),
			    "");
	assert_null(pamw_test_env(tc[1].case_out.envlist, "PAM_TTY"));
	pamtest_free_env(tc[1].case_out.envlist);
	unset_items();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		test_get_items_alone, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_round_trip, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_set_items_feed_matrix,
					    pamw_test_setup,
					    pamw_test_teardown),
	};

	unset_items();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
