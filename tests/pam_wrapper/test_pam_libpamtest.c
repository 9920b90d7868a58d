/*
 * libpamtest's API, under pam_wrapper, with pam_matrix and pam_chatty
 * answering: the layout of its types (the ABI every libpamtest shares),
 * how a run stops, what GETENVLIST and KEEPHANDLE give, how the default
 * conversation answers and where its messages go, run_pamtest_conv().
 */
#include "pamw_test.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <security/pam_modules.h> /* PAM_PRELIM_CHECK */

#define MATRIX                                                                 \
	"auth     required @M@/pam_matrix.so passdb=@P@ verbose\n"             \
	"account  required @M@/pam_matrix.so passdb=@P@\n"                     \
	"password required @M@/pam_matrix.so passdb=@P@\n"                     \
	"session  required @M@/pam_matrix.so passdb=@P@\n"

static void test_abi(void **state)
{
	struct pam_testcase a = pam_test(PAMTEST_CHAUTHTOK, PAM_AUTH_ERR);
	struct pam_testcase b = pam_test_flags(PAMTEST_SETCRED, 3, 0x10);

	(void)state;
	assert_int_equal(PAMTEST_AUTHENTICATE, 0);
	assert_int_equal(PAMTEST_SETCRED, 1);
	assert_int_equal(PAMTEST_ACCOUNT, 2);
	assert_int_equal(PAMTEST_OPEN_SESSION, 3);
	assert_int_equal(PAMTEST_CLOSE_SESSION, 4);
	assert_int_equal(PAMTEST_CHAUTHTOK, 5);
	assert_int_equal(PAMTEST_GETENVLIST, 20);
	assert_int_equal(PAMTEST_KEEPHANDLE, 21);
	assert_int_equal(PAMTEST_ERR_OK, 0);
	assert_int_equal(PAMTEST_ERR_START, 1);
	assert_int_equal(PAMTEST_ERR_CASE, 2);
	assert_int_equal(PAMTEST_ERR_OP, 3);
	assert_int_equal(PAMTEST_ERR_END, 4);
	assert_int_equal(PAMTEST_ERR_KEEPHANDLE, 5);
	assert_int_equal(PAMTEST_ERR_INTERNAL, 6);
	assert_int_equal(offsetof(struct pam_testcase, pam_operation), 0);
	assert_int_equal(offsetof(struct pam_testcase, expected_rv), 4);
	assert_int_equal(offsetof(struct pam_testcase, flags), 8);
	assert_int_equal(offsetof(struct pam_testcase, op_rv), 12);
	assert_int_equal(offsetof(struct pam_testcase, case_out),
			 sizeof(void *) == 8 ? 16 : 16);
	assert_int_equal(sizeof(struct pam_testcase), 16 + sizeof(void *));
	assert_int_equal(offsetof(struct pamtest_conv_data, in_echo_off), 0);
	assert_int_equal(offsetof(struct pamtest_conv_data, in_echo_on),
			 sizeof(void *));
	assert_int_equal(offsetof(struct pamtest_conv_data, out_err),
			 2 * sizeof(void *));
	assert_int_equal(offsetof(struct pamtest_conv_data, out_info),
			 3 * sizeof(void *));
	assert_int_equal(a.pam_operation, PAMTEST_CHAUTHTOK);
	assert_int_equal(a.expected_rv, PAM_AUTH_ERR);
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.op_rv, 0);
	assert_null(a.case_out.envlist);
	assert_int_equal(b.flags, 0x10);
	assert_int_equal(b.expected_rv, 3);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_OK), "Success");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_START),
			    "pam_start failed()");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_CASE),
			    "Unexpected testcase result");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_OP),
			    "Could not run a test case");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_END),
			    "pam_end failed()");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_KEEPHANDLE),
			    "Internal libpamtest error");
	assert_string_equal(pamtest_strerror(PAMTEST_ERR_INTERNAL),
			    "Internal libpamtest error");
	assert_string_equal(pamtest_strerror((enum pamtest_err)42), "Unknown");
	pamtest_free_env(NULL);
}

/* A result other than the expected one stops the run there. */
static void test_stop_at_failed_case(void **state)
{
	struct pamw_test *t = *state;
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data conv = {.in_echo_off = pw};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    pam_test(PAMTEST_ACCOUNT, PAM_PERM_DENIED), /* alice may */
	    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
	};
	const struct pam_testcase *f;

	pamw_test_service(t, "svc", MATRIX);
	tc[2].op_rv = 77;
	assert_int_equal(run_pamtest("svc", "alice", &conv, tc, NULL),
			 PAMTEST_ERR_CASE);
	assert_int_equal(tc[0].op_rv, PAM_SUCCESS);
	assert_int_equal(tc[1].op_rv, PAM_SUCCESS);
	assert_int_equal(tc[2].op_rv, 77); /* not run */
	f = pamtest_failed_case(tc);
	assert_ptr_equal(f, &tc[1]);
	tc[1].expected_rv = PAM_SUCCESS;
	tc[2].op_rv = 0;
	assert_null(pamtest_failed_case(tc));
}

static int run_nosuch(void *arg)
{
	return _pamtest("nosuch", "alice", NULL, arg, 1, NULL);
}

static void test_start_and_op_errors(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase tc[] = {pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
				    pam_test((enum pamtest_ops)9, PAM_SUCCESS),
				    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS)};
	char *other;

	pamw_test_service(t, "svc", MATRIX);
	assert_int_equal(_pamtest(NULL, "alice", NULL, tc, 1, NULL),
			 PAMTEST_ERR_START);
	/* no file for the service, and no `other` */
	other = cwrap_test_path(t->svcdir, "other");
	unlink(other);
	free(other);
	assert_int_equal(pamw_test_in_child(run_nosuch, tc), PAMTEST_ERR_START);
	/* an operation no libpamtest knows */
	tc[2].op_rv = 77;
	assert_int_equal(run_pamtest("svc", "alice", NULL, tc, NULL),
			 PAMTEST_ERR_OP);
	assert_int_equal(tc[2].op_rv, 77);
	/* no case at all */
	assert_int_equal(_pamtest("svc", "alice", NULL, tc, 0, NULL),
			 PAMTEST_ERR_OK);
}

/* PAMTEST_KEEPHANDLE: the handle outlives the run, a second run goes on
 * with it (its own conversation), and a kept handle's conversation
 * answers nothing rather than pointing at a finished run. */
static void test_keephandle(void **state)
{
	struct pamw_test *t = *state;
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data conv = {.in_echo_off = pw};
	struct pam_testcase first[] = {
	    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	    pam_test(PAMTEST_KEEPHANDLE, PAM_SUCCESS),
	};
	struct pam_testcase second[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS),
	    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
	    pam_test(PAMTEST_KEEPHANDLE, PAM_SUCCESS),
	};
	pam_handle_t *ph;

	pamw_test_service(t, "svc", MATRIX);
	assert_int_equal(run_pamtest("svc", "alice", NULL, first, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(pamw_test_env(first[1].case_out.envlist, "HOMEDIR"),
			    "/home/alice");
	pamtest_free_env(first[1].case_out.envlist);
	ph = first[2].case_out.ph;
	assert_non_null(ph);

	assert_int_equal(run_pamtest(NULL, NULL, &conv, second, ph),
			 PAMTEST_ERR_OK);
	assert_string_equal(
	    pamw_test_env(second[1].case_out.envlist, "HOMEDIR"),
	    "/home/alice");
	assert_null(pamw_test_env(second[3].case_out.envlist, "HOMEDIR"));
	pamtest_free_env(second[1].case_out.envlist);
	pamtest_free_env(second[3].case_out.envlist);
	assert_ptr_equal(second[4].case_out.ph, ph);

	/* the kept handle's conversation: no answers (pam_matrix refuses a
	 * null password), no crash */
	assert_int_equal(pam_authenticate(ph, 0), PAM_CRED_ERR);
	assert_int_equal(pam_end(ph, PAM_SUCCESS), PAM_SUCCESS);
}

/* The conversation itself, called as a module calls it, with no answer
 * left (the kept handle's, which has none): PAM_SUCCESS, and a NULL
 * answer to each prompt (what the module makes of it is the module's;
 * test_default_conversation runs the lists out through pam_matrix). */
static void test_answers_run_out(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase keep[] = {
	    pam_test(PAMTEST_KEEPHANDLE, PAM_SUCCESS)};
	const struct pam_message m_off = {PAM_PROMPT_ECHO_OFF, "Password: "};
	const struct pam_message m_on = {PAM_PROMPT_ECHO_ON, "Login: "};
	const struct pam_message m_info = {PAM_TEXT_INFO, "hello"};
	const struct pam_message *msgs[] = {&m_off, &m_info, &m_on};
	struct pam_response *r = NULL;
	const void *item = NULL;
	const struct pam_conv *c;
	pam_handle_t *ph;

	pamw_test_service(t, "svc", MATRIX);
	assert_int_equal(run_pamtest("svc", "alice", NULL, keep, NULL),
			 PAMTEST_ERR_OK);
	ph = keep[0].case_out.ph;
	assert_int_equal(pam_get_item(ph, PAM_CONV, &item), PAM_SUCCESS);
	c = item;
	assert_int_equal(c->conv(3, msgs, &r, c->appdata_ptr), PAM_SUCCESS);
	assert_non_null(r);
	for (int i = 0; i < 3; i++) {
		assert_null(r[i].resp);
	}
	free(r);
	assert_int_equal(pam_end(ph, PAM_SUCCESS), PAM_SUCCESS);
}

/* The default conversation: answers from the lists in order, through
 * every case of a run; messages into the caller's buffers in order; a
 * NULL slot or array ends them; no answer left is a NULL answer from
 * a conversation that succeeds. */
static void test_default_conversation(void **state)
{
	struct pamw_test *t = *state;
	const char *off[] = {"secret", "wrong", "secret", NULL};
	char b[4][PAM_MAX_MSG_SIZE] = {"x", "x", "x", "x"};
	char *info[] = {b[0], b[1], NULL};
	char *errs[] = {b[2], NULL};
	struct pamtest_conv_data conv = {
	    .in_echo_off = off, .out_err = errs, .out_info = info};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTH_ERR),
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    /* answers used up: a NULL answer, which pam_matrix refuses */
	    pam_test(PAMTEST_AUTHENTICATE, PAM_CRED_ERR),
	};

	pamw_test_service(t, "svc", MATRIX);
	assert_int_equal(run_pamtest("svc", "alice", &conv, tc, NULL),
			 PAMTEST_ERR_OK);
	assert_string_equal(b[0], "Authentication succeeded");
	assert_string_equal(b[1], "Authentication succeeded");
	assert_string_equal(b[2], "Authentication failed");
	assert_string_equal(b[3], "x"); /* past the NULL slot: untouched */

	/* no conversation data at all: NULL answers, nothing breaks */
	struct pam_testcase one[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_CRED_ERR)};
	assert_int_equal(run_pamtest("svc", "alice", NULL, one, NULL),
			 PAMTEST_ERR_OK);
}

struct my_conv {
	int calls;
	const char *answer;
};

static int my_conv_fn(int n, const struct pam_message **msg,
		      struct pam_response **resp, void *data)
{
	struct my_conv *c = data;
	struct pam_response *r = calloc((size_t)n, sizeof(*r));

	assert_non_null(r);
	c->calls++;
	for (int i = 0; i < n; i++) {
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF) {
			assert_string_equal(msg[i]->msg, "Password: ");
			r[i].resp = strdup(c->answer);
		}
	}
	*resp = r;
	return PAM_SUCCESS;
}

static void test_run_pamtest_conv(void **state)
{
	struct pamw_test *t = *state;
	struct my_conv c = {0, "secret"};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
	    pam_test_flags(PAMTEST_SETCRED, PAM_SUCCESS, PAM_ESTABLISH_CRED),
	    /* flags reach the call: libpam refuses these from applications */
	    pam_test_flags(PAMTEST_CHAUTHTOK, PAM_SYSTEM_ERR, PAM_PRELIM_CHECK),
	};

	pamw_test_service(t, "svc", MATRIX);
	assert_int_equal(
	    run_pamtest_conv("svc", "alice", my_conv_fn, &c, tc, NULL),
	    PAMTEST_ERR_OK);
	/* the prompt, then the verbose info */
	assert_int_equal(c.calls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abi),
	    cmocka_unit_test(test_strerror),
	    cmocka_unit_test_setup_teardown(
		test_stop_at_failed_case, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_start_and_op_errors, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_answers_run_out, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_keephandle, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_default_conversation, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_run_pamtest_conv, pamw_test_setup, pamw_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
