/*
 * pam_chatty through libpamtest, under pam_wrapper: num_lines messages of
 * each chosen style, in order, then success.
 */
#include "pamw_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXMSG 8

struct msgs {
	char buf[2][MAXMSG][PAM_MAX_MSG_SIZE];
	char *err[MAXMSG + 1], *info[MAXMSG + 1];
};

static void msgs_init(struct msgs *m, struct pamtest_conv_data *conv)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < MAXMSG; i++) {
		m->err[i] = m->buf[0][i];
		m->info[i] = m->buf[1][i];
	}
	memset(conv, 0, sizeof(*conv));
	conv->out_err = m->err;
	conv->out_info = m->info;
}

static int count(char **arr, const char *text)
{
	int n = 0;

	for (int i = 0; arr[i] != NULL && arr[i][0] != '\0'; i++) {
		assert_string_equal(arr[i], text);
		n++;
	}
	return n;
}

static void chatty(struct pamw_test *t, const char *opts, int want_info,
		   int want_err)
{
	char line[256];
	struct msgs m;
	struct pamtest_conv_data conv;
	struct pam_testcase tc[] = {pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
				    pam_test(PAMTEST_SETCRED, PAM_SUCCESS)};

	snprintf(line, sizeof(line), "auth required @M@/pam_chatty.so %s\n",
		 opts);
	pamw_test_service(t, "chatty", line);
	msgs_init(&m, &conv);
	assert_int_equal(run_pamtest("chatty", "alice", &conv, tc, NULL),
			 PAMTEST_ERR_OK);
	assert_int_equal(count(m.info, "Authentication succeeded"), want_info);
	assert_int_equal(count(m.err, "Authentication generated an error"),
			 want_err);
}

static void test_lines(void **state)
{
	struct pamw_test *t = *state;

	chatty(t, "num_lines=5 info error", 5, 5);
	chatty(t, "error num_lines=2", 0, 2);
	chatty(t, "info", 3, 0); /* default 3 */
	chatty(t, "num_lines=7", 0, 0);
	chatty(t, "num_lines=0 info error", 0, 0);
	chatty(t, "num_lines=1 info", 1, 0);
	chatty(t, "num_lines=8 info error", 8, 8);
}

/* Infos come first, each message in its own conversation call. */
static int order_conv(int n, const struct pam_message **msg,
		      struct pam_response **resp, void *data)
{
	char *log = data;

	assert_int_equal(n, 1);
	strcat(log, msg[0]->msg_style == PAM_TEXT_INFO ? "I" : "E");
	*resp = NULL;
	return PAM_SUCCESS;
}

static void test_order(void **state)
{
	struct pamw_test *t = *state;
	char log[64] = "";
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};

	pamw_test_service(t, "chatty",
			  "auth required @M@/pam_chatty.so error info "
			  "num_lines=2\n");
	assert_int_equal(
	    run_pamtest_conv("chatty", "alice", order_conv, log, tc, NULL),
	    PAMTEST_ERR_OK);
	assert_string_equal(log, "IIEE");
}

static void test_bad_options(void **state)
{
	struct pamw_test *t = *state;
	char *err;

	pamw_test_capture_begin();
	chatty(t, "num_lines=abc info", 3, 0);
	chatty(t, "num_lines=-1 info", 3, 0);
	chatty(t, "num_lines=99999 info loud", 3, 0);
	err = pamw_test_capture_end();
	assert_int_equal(pamw_test_count_lines(
			     err, "pam_chatty(chatty): num_lines=abc is not a "
				  "number of 0..4096, using 3"),
			 1);
	assert_int_equal(pamw_test_count_lines(err, "num_lines=-1 is not"), 1);
	assert_int_equal(pamw_test_count_lines(err, "num_lines=99999 is not"),
			 1);
	assert_int_equal(pamw_test_count_lines(err, "unknown option 'loud'"),
			 1);
	free(err);
}

/* Only authentication: the account hook is not there. */
static void test_auth_only(void **state)
{
	struct pamw_test *t = *state;
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_ACCOUNT, PAM_MODULE_UNKNOWN)};

	pamw_test_service(t, "chatty",
			  "account required @M@/pam_chatty.so info\n");
	assert_int_equal(run_pamtest("chatty", "alice", NULL, tc, NULL),
			 PAMTEST_ERR_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lines, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_order, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_bad_options, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_auth_only, pamw_test_setup,
					    pamw_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
