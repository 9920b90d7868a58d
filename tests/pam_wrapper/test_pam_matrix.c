/*
 * pam_matrix through libpamtest, under pam_wrapper: every hook, every
 * option, the password file read and rewritten, and the results upstream's
 * module gives (tests/pam_wrapper/pam_compare.sh runs both).
 */
#include "pamw_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#define MATRIX_ALL(opts)                                                       \
	"auth     required @M@/pam_matrix.so " opts "\n"                       \
	"account  required @M@/pam_matrix.so " opts "\n"                       \
	"password required @M@/pam_matrix.so " opts "\n"                       \
	"session  required @M@/pam_matrix.so " opts "\n"

/* pam_get_items after pam_matrix in every stack: the items in the env */
#define MATRIX_ITEMS(opts)                                                     \
	"auth     required @M@/pam_matrix.so " opts "\n"                       \
	"auth     required @M@/pam_get_items.so\n"                             \
	"password required @M@/pam_matrix.so " opts "\n"                       \
	"password required @M@/pam_get_items.so\n"

static void run(const char *service, const char *user, const char **off,
		const char **on, struct pam_testcase *tc, size_t n,
		enum pamtest_err want)
{
	struct pamtest_conv_data conv = {.in_echo_off = off, .in_echo_on = on};
	enum pamtest_err err = _pamtest(service, user, &conv, tc, n, NULL);

	if (err != want) {
		const struct pam_testcase *f = _pamtest_failed_case(tc, n);

		fail_msg(
		    "%s: %s (case %ld: %d, expected %d)", service,
		    pamtest_strerror(err), f != NULL ? (long)(f - tc) : -1L,
		    f != NULL ? f->op_rv : 0, f != NULL ? f->expected_rv : 0);
	}
}

static void test_auth(void **state)
{
	struct pamw_test *t = *state;
	const char *right[] = {"secret", NULL};
	const char *wrong[] = {"Secret", NULL};
	const char *bobs[] = {"pw", NULL};
	struct pam_testcase ok[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};
	struct pam_testcase bad[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTH_ERR)};

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	run("svc", "alice", right, NULL, ok, 1, PAMTEST_ERR_OK);
	run("svc", "alice", wrong, NULL, bad, 1, PAMTEST_ERR_OK);
	/* auth ignores the user's service (account checks it) */
	run("svc", "bob", bobs, NULL, ok, 1, PAMTEST_ERR_OK);
	/* an unknown user is asked too, and fails */
	run("svc", "carol", right, NULL, bad, 1, PAMTEST_ERR_OK);
	/* a password that is a prefix, or longer */
	const char *prefix[] = {"secre", NULL}, *longer[] = {"secrets", NULL};
	run("svc", "alice", prefix, NULL, bad, 1, PAMTEST_ERR_OK);
	run("svc", "alice", longer, NULL, bad, 1, PAMTEST_ERR_OK);
}

static void test_no_user(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_BAD_ITEM),
	    pam_test(PAMTEST_SETCRED, PAM_BAD_ITEM),
	    pam_test(PAMTEST_ACCOUNT, PAM_BAD_ITEM),
	    pam_test(PAMTEST_OPEN_SESSION, PAM_BAD_ITEM),
	    pam_test(PAMTEST_CLOSE_SESSION, PAM_BAD_ITEM),
	    pam_test(PAMTEST_CHAUTHTOK, PAM_BAD_ITEM),
	};

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	/* (no prompt for a user name: none is answered) */
	run("svc", NULL, NULL, NULL, tc, 6, PAMTEST_ERR_OK);
}

static void test_passdb_sources(void **state)
{
	struct pamw_test *t = *state;
	const char *right[] = {"secret", NULL};
	struct pam_testcase ok[] = {pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
				    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS)};
	struct pam_testcase unavail[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_SETCRED, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_ACCOUNT, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_OPEN_SESSION, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_CLOSE_SESSION, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTHINFO_UNAVAIL),
	};
	char *err;

	/* no passdb= option: PAM_MATRIX_PASSWD */
	pamw_test_service(t, "svc", MATRIX_ALL(""));
	setenv("PAM_MATRIX_PASSWD", t->passdb, 1);
	run("svc", "alice", right, NULL, ok, 2, PAMTEST_ERR_OK);
	/* neither: unavailable, without a prompt, and said in one line */
	unsetenv("PAM_MATRIX_PASSWD");
	pamw_test_capture_begin();
	run("svc", "alice", NULL, NULL, unavail, 6, PAMTEST_ERR_OK);
	err = pamw_test_capture_end();
	assert_int_equal(
	    pamw_test_count_lines(err, "pam_matrix(svc): no password file"), 6);
	free(err);
	/* the option wins over the variable */
	setenv("PAM_MATRIX_PASSWD", "/nonexistent/passdb", 1);
	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	run("svc", "alice", right, NULL, ok, 2, PAMTEST_ERR_OK);
	/* a file that cannot be read: named with the reason */
	pamw_test_service(t, "svc", MATRIX_ALL("passdb=/nonexistent/passdb"));
	pamw_test_capture_begin();
	run("svc", "alice", NULL, NULL, unavail, 1, PAMTEST_ERR_OK);
	err = pamw_test_capture_end();
	assert_int_equal(pamw_test_count_lines(err, "PWRAP_ERROR("), 1);
	assert_int_equal(
	    pamw_test_count_lines(
		err, "pam_matrix(svc): /nonexistent/passdb: No such file"),
	    1);
	free(err);
}

static void test_echo_and_verbose(void **state)
{
	struct pamw_test *t = *state;
	const char *right[] = {"secret", NULL};
	const char *wrong[] = {"nope", NULL};
	char b[4][PAM_MAX_MSG_SIZE] = {"", "", "", ""};
	char *info[] = {b[0], b[1], NULL};
	char *errs[] = {b[2], b[3], NULL};
	struct pamtest_conv_data conv = {.out_err = errs, .out_info = info};
	struct pam_testcase ok[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};
	struct pam_testcase bad[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTH_ERR)};
	struct pam_testcase unanswered[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_CRED_ERR)};

	/* echo: the password is asked with PAM_PROMPT_ECHO_ON (the
	 * ECHO_OFF answers are not used: none is given) */
	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@ echo"));
	run("svc", "alice", NULL, right, ok, 1, PAMTEST_ERR_OK);
	run("svc", "alice", right, NULL, unanswered, 1, PAMTEST_ERR_OK);

	/* verbose: one info on success, one error on failure */
	pamw_test_service(t, "svc", MATRIX_ALL("verbose passdb=@P@"));
	conv.in_echo_off = right;
	assert_int_equal(run_pamtest("svc", "alice", &conv, ok, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(b[0], "Authentication succeeded");
	assert_string_equal(b[1], "");
	assert_string_equal(b[2], "");
	conv.in_echo_off = wrong;
	assert_int_equal(run_pamtest("svc", "alice", &conv, bad, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(b[2], "Authentication failed");
	assert_string_equal(b[3], "");
}

static void test_authtok_item(void **state)
{
	struct pamw_test *t = *state;
	const char *right[] = {"secret", NULL};
	struct pam_testcase tc[] = {pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
				    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS)};

	pamw_test_service(t, "svc", MATRIX_ITEMS("passdb=@P@"));
	run("svc", "alice", right, NULL, tc, 2, PAMTEST_ERR_OK);
	/* what was typed is PAM_AUTHTOK for the next module (upstream's
	 * module leaves it empty) */
	assert_string_equal(
	    pamw_test_env(tc[1].case_out.envlist, "PAM_AUTHTOK"), "secret");
	assert_string_equal(pamw_test_env(tc[1].case_out.envlist, "PAM_USER"),
			    "alice");
	pamtest_free_env(tc[1].case_out.envlist);
}

static void test_account(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase ok[] = {pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS)};
	struct pam_testcase denied[] = {
	    pam_test(PAMTEST_ACCOUNT, PAM_PERM_DENIED)};

	pamw_test_passdb(t, "alice:secret:svc\nbob:pw:other\n"
			    "eve:e:svc:with:colons\ndup:a:svc\ndup:b:x\n"
			    "trail:t:svc \n");
	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	pamw_test_service(t, "svc:with:colons", MATRIX_ALL("passdb=@P@"));
	run("svc", "alice", NULL, NULL, ok, 1, PAMTEST_ERR_OK);
	run("svc", "bob", NULL, NULL, denied, 1, PAMTEST_ERR_OK);
	run("svc", "carol", NULL, NULL, denied, 1, PAMTEST_ERR_OK);
	/* the service is the rest of the line, compared exactly */
	run("svc", "eve", NULL, NULL, denied, 1, PAMTEST_ERR_OK);
	run("svc:with:colons", "eve", NULL, NULL, ok, 1, PAMTEST_ERR_OK);
	run("svc", "trail", NULL, NULL, denied, 1, PAMTEST_ERR_OK);
	/* a user's first line counts */
	run("svc", "dup", NULL, NULL, ok, 1, PAMTEST_ERR_OK);
}

static void test_session_and_setcred(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_SETCRED, PAM_SUCCESS),
	    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	    /* closing again: nothing left to remove, still a success */
	    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS),
	};

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	/* a user the file does not know gets a session too */
	run("svc", "carol", NULL, NULL, tc, 6, PAMTEST_ERR_OK);
	assert_string_equal(pamw_test_env(tc[2].case_out.envlist, "HOMEDIR"),
			    "/home/carol");
	assert_string_equal(pamw_test_env(tc[2].case_out.envlist, "CRED"),
			    "/tmp/carol");
	assert_null(pamw_test_env(tc[4].case_out.envlist, "HOMEDIR"));
	assert_string_equal(pamw_test_env(tc[4].case_out.envlist, "CRED"),
			    "/tmp/carol");
	pamtest_free_env(tc[2].case_out.envlist);
	pamtest_free_env(tc[4].case_out.envlist);
}

/* Files in dir other than `keep`: a rewrite leaves no temporary file. */
static int other_files(const char *dir, const char *keep1, const char *keep2)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, keep1) != 0 &&
		    strcmp(de->d_name, keep2) != 0) {
			n++;
		}
	}
	closedir(d);
	return n;
}

static void test_chauthtok(void **state)
{
	struct pamw_test *t = *state;
	const char *change[] = {"secret", "n3w:no", "n3w:no", "secret",
				"new",	  "new",    NULL};
	const char *old_pw[] = {"secret", NULL}, *new_pw[] = {"new", NULL};
	const char *text = "# users\nalice:secret:svc\n\nbob:pw:other\n"
			   "alice:second:line\nlast:l:x";
	struct pam_testcase tc[] = {
	    /* a password with ':' cannot be stored */
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTHTOK_ERR),
	    pam_test(PAMTEST_CHAUTHTOK, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	};
	struct pam_testcase auth_ok[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};
	struct pam_testcase auth_bad[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTH_ERR)};
	struct stat before, after;
	char *now;

	pamw_test_passdb(t, text);
	assert_int_equal(chmod(t->passdb, 0640), 0);
	assert_int_equal(stat(t->passdb, &before), 0);
	pamw_test_service(t, "svc", MATRIX_ITEMS("passdb=@P@"));
	run("svc", "alice", change, NULL, tc, 3, PAMTEST_ERR_OK);
	assert_string_equal(
	    pamw_test_env(tc[2].case_out.envlist, "PAM_AUTHTOK"), "new");
	assert_string_equal(
	    pamw_test_env(tc[2].case_out.envlist, "PAM_OLDAUTHTOK"), "secret");
	pamtest_free_env(tc[2].case_out.envlist);

	/* only the user's first line changed, every other byte kept */
	now = cwrap_test_read_file(t->passdb, NULL);
	assert_string_equal(now, "# users\nalice:new:svc\n\nbob:pw:other\n"
				 "alice:second:line\nlast:l:x");
	free(now);
	/* a new file renamed over the old one, with its mode, and nothing
	 * else left in the directory */
	assert_int_equal(stat(t->passdb, &after), 0);
	assert_true(after.st_ino != before.st_ino);
	assert_int_equal(after.st_mode & 07777, 0640);
	assert_int_equal(other_files(t->dir, "passdb", "services"), 0);

	run("svc", "alice", new_pw, NULL, auth_ok, 1, PAMTEST_ERR_OK);
	run("svc", "alice", old_pw, NULL, auth_bad, 1, PAMTEST_ERR_OK);
}

static void test_chauthtok_refused(void **state)
{
	struct pamw_test *t = *state;
	const char *wrong_old[] = {"nope", NULL};
	const char *mismatch[] = {"secret", "a", "b", NULL};
	const char *unknown[] = {"x", NULL};
	const char *cut[] = {"secret", "a", NULL};
	char b[2][PAM_MAX_MSG_SIZE] = {"", ""};
	char *errs[] = {b[0], b[1], NULL};
	struct pamtest_conv_data conv = {.out_err = errs};
	struct pam_testcase auth_err[] = {
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTH_ERR)};
	struct pam_testcase unavail[] = {
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTHINFO_UNAVAIL)};
	char *now;

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	run("svc", "alice", wrong_old, NULL, auth_err, 1, PAMTEST_ERR_OK);
	run("svc", "carol", unknown, NULL, auth_err, 1, PAMTEST_ERR_OK);
	/* the two new ones differ: said, and upstream's result */
	conv.in_echo_off = mismatch;
	assert_int_equal(run_pamtest("svc", "alice", &conv, unavail, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(b[0], "Passwords do not match");
	/* the conversation stops answering */
	run("svc", "alice", cut, NULL, unavail, 1, PAMTEST_ERR_OK);
	now = cwrap_test_read_file(t->passdb, NULL);
	assert_string_equal(now, "alice:secret:svc\nbob:pw:other\n");
	free(now);
}

static int failing_conv(int n, const struct pam_message **msg,
			struct pam_response **resp, void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	++*(int *)data;
	return PAM_CONV_ERR;
}

/* A conversation that succeeds without an answer (libpamtest's, once its
 * answers have run out): no null passwords, PAM_CRED_ERR, for auth and
 * for the old password; "Authentication failed" when verbose. No new
 * password: PAM_AUTHINFO_UNAVAIL, the file unchanged. A conversation
 * that fails: PAM_AUTHINFO_UNAVAIL, silently. */
static void test_no_answer(void **state)
{
	struct pamw_test *t = *state;
	const char *old_only[] = {"secret", NULL};
	char b[2][PAM_MAX_MSG_SIZE] = {"", ""};
	char *errs[] = {b[0], b[1], NULL};
	struct pamtest_conv_data conv = {.out_err = errs};
	struct pam_testcase cred_err[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_CRED_ERR),
	    pam_test(PAMTEST_CHAUTHTOK, PAM_CRED_ERR)};
	struct pam_testcase unavail[] = {
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTHINFO_UNAVAIL)};
	struct pam_testcase conv_failed[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTHINFO_UNAVAIL),
	    pam_test(PAMTEST_CHAUTHTOK, PAM_AUTHINFO_UNAVAIL)};
	int calls = 0;
	char *now;

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@ verbose"));
	assert_int_equal(run_pamtest("svc", "alice", &conv, cred_err, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(b[0], "Authentication failed");
	assert_string_equal(b[1], "Authentication failed");

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@"));
	run("svc", "alice", NULL, NULL, cred_err, 2, PAMTEST_ERR_OK);
	run("svc", "alice", old_only, NULL, unavail, 1, PAMTEST_ERR_OK);
	now = cwrap_test_read_file(t->passdb, NULL);
	assert_string_equal(now, "alice:secret:svc\nbob:pw:other\n");
	free(now);

	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@ verbose"));
	assert_int_equal(run_pamtest_conv("svc", "alice", failing_conv, &calls,
					  conv_failed, NULL),
			 PAMTEST_ERR_OK);
	assert_int_equal(calls, 2); /* the two prompts, no message after */
}

static void test_bad_lines(void **state)
{
	struct pamw_test *t = *state;
	const char *right[] = {"secret", NULL};
	struct pam_testcase tc[] = {pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
				    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS)};
	char *err;
	char want[4096];

	pamw_test_passdb(t, "nocolon\n# comment:x:y\n:nouser:svc\n"
			    "oneonly:pw\nalice:secret:svc\n");
	pamw_test_service(t, "svc", MATRIX_ALL("passdb=@P@ bogus"));
	pamw_test_capture_begin();
	run("svc", "alice", right, NULL, tc, 2, PAMTEST_ERR_OK);
	err = pamw_test_capture_end();
	/* each bad line named with its number, at every read of the file;
	 * the unknown option named at every call */
	snprintf(want, sizeof(want), "%s:1: not user:password:service",
		 t->passdb);
	assert_int_equal(pamw_test_count_lines(err, want), 2);
	snprintf(want, sizeof(want), "%s:3: an empty user name", t->passdb);
	assert_int_equal(pamw_test_count_lines(err, want), 2);
	snprintf(want, sizeof(want),
		 "%s:4: not user:password:service (no service)", t->passdb);
	assert_int_equal(pamw_test_count_lines(err, want), 2);
	assert_int_equal(pamw_test_count_lines(
			     err, "pam_matrix(svc): unknown option 'bogus'"),
			 2);
	assert_int_equal(pamw_test_count_lines(err, ":2:"), 0);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_auth, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_no_user, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_passdb_sources, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_echo_and_verbose, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_authtok_item, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_account, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_session_and_setcred, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_chauthtok, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_chauthtok_refused, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_no_answer, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_bad_lines, pamw_test_setup,
					    pamw_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
