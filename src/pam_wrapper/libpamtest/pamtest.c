/*
 * libpamtest: a PAM transaction run from a list of test cases (see
 * libpamtest.h). No state: everything lives in the caller's arrays and
 * the run's stack frame.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pamtest_int.h"

/* One case's operation on ph; false for an operation we do not know. */
static bool pamtest_run_case(pam_handle_t *ph, struct pam_testcase *tc,
			     bool *keep)
{
	switch (tc->pam_operation) {
	case PAMTEST_AUTHENTICATE:
		tc->op_rv = pam_authenticate(ph, tc->flags);
		break;
	case PAMTEST_SETCRED:
		tc->op_rv = pam_setcred(ph, tc->flags);
		break;
	case PAMTEST_ACCOUNT:
		tc->op_rv = pam_acct_mgmt(ph, tc->flags);
		break;
	case PAMTEST_OPEN_SESSION:
		tc->op_rv = pam_open_session(ph, tc->flags);
		break;
	case PAMTEST_CLOSE_SESSION:
		tc->op_rv = pam_close_session(ph, tc->flags);
		break;
	case PAMTEST_CHAUTHTOK:
		tc->op_rv = pam_chauthtok(ph, tc->flags);
		break;
	case PAMTEST_GETENVLIST:
		tc->case_out.envlist = pam_getenvlist(ph);
		tc->op_rv =
		    tc->case_out.envlist != NULL ? PAM_SUCCESS : PAM_BUF_ERR;
		break;
	case PAMTEST_KEEPHANDLE:
		tc->case_out.ph = ph;
		tc->op_rv = PAM_SUCCESS;
		*keep = true;
		break;
	default:
		return false;
	}
	return true;
}

/* The run of _pamtest_conv(); *kept is the handle a PAMTEST_KEEPHANDLE case
 * kept from pam_end(), or NULL. */
static enum pamtest_err pamtest_run(const char *service, const char *user,
				    pam_conv_fn conv_fn, void *conv_userdata,
				    struct pam_testcase test_cases[],
				    size_t num_test_cases,
				    pam_handle_t *pam_handle,
				    pam_handle_t **kept)
{
	struct pam_conv conv = {.conv = conv_fn, .appdata_ptr = conv_userdata};
	enum pamtest_err err = PAMTEST_ERR_OK;
	pam_handle_t *ph = pam_handle;
	bool keep = false;
	int last = PAM_SUCCESS;

	*kept = NULL;
	if (ph == NULL) {
		/* (libpam refuses a NULL service too, but its prototype says
		 * it may not be passed) */
		if (service == NULL ||
		    pam_start(service, user, &conv, &ph) != PAM_SUCCESS) {
			return PAMTEST_ERR_START;
		}
	} else if (pam_set_item(ph, PAM_CONV, &conv) != PAM_SUCCESS) {
		/* (the handle's conversation was the earlier run's, whose
		 * answers are gone) */
		return PAMTEST_ERR_INTERNAL;
	}
	for (size_t i = 0; i < num_test_cases; i++) {
		struct pam_testcase *tc = &test_cases[i];

		if (!pamtest_run_case(ph, tc, &keep)) {
			err = PAMTEST_ERR_OP;
			break;
		}
		last = tc->op_rv;
		if (tc->op_rv != tc->expected_rv) {
			err = PAMTEST_ERR_CASE;
			break;
		}
	}
	if (keep) {
		*kept = ph;
	} else if (pam_end(ph, last) != PAM_SUCCESS && err == PAMTEST_ERR_OK) {
		err = PAMTEST_ERR_END;
	}
	return err;
}

PAMTEST_API enum pamtest_err
_pamtest_conv(const char *service, const char *user, pam_conv_fn conv_fn,
	      void *conv_userdata, struct pam_testcase test_cases[],
	      size_t num_test_cases, pam_handle_t *pam_handle)
{
	pam_handle_t *kept;

	return pamtest_run(service, user, conv_fn, conv_userdata, test_cases,
			   num_test_cases, pam_handle, &kept);
}

/* The default conversation's messages, copied into the caller's buffers
 * in order; a NULL array or slot ends them. */
struct pamtest_out {
	struct pamtest_conv_data *data;
	size_t err, info;
};

static bool pamtest_copy_out(void *ctx, int style, const char *msg)
{
	struct pamtest_out *o = ctx;
	char **arr =
	    style == PAM_ERROR_MSG ? o->data->out_err : o->data->out_info;
	size_t *idx = style == PAM_ERROR_MSG ? &o->err : &o->info;

	if (arr != NULL && arr[*idx] != NULL) {
		snprintf(arr[*idx], PAM_MAX_MSG_SIZE, "%s", msg);
		++*idx;
	}
	return true;
}

PAMTEST_API enum pamtest_err _pamtest(const char *service, const char *user,
				      struct pamtest_conv_data *conv_data,
				      struct pam_testcase test_cases[],
				      size_t num_test_cases,
				      pam_handle_t *pam_handle)
{
	/* A kept handle outlives this frame's conversation state: it gets
	 * one that answers nothing, instead of one that points here. */
	static const struct pamtest_conv_state quiet;
	struct pamtest_out out = {.data = conv_data};
	struct pamtest_conv_state st = {0};
	enum pamtest_err err;
	pam_handle_t *kept;

	if (conv_data != NULL) {
		st.echo_off = conv_data->in_echo_off;
		st.echo_on = conv_data->in_echo_on;
		st.sink = pamtest_copy_out;
		st.sink_ctx = &out;
	}
	err = pamtest_run(service, user, pamtest_conv, &st, test_cases,
			  num_test_cases, pam_handle, &kept);
	if (kept != NULL) {
		struct pam_conv conv = {.conv = pamtest_conv,
					.appdata_ptr = (void *)&quiet};

		if (pam_set_item(kept, PAM_CONV, &conv) != PAM_SUCCESS &&
		    err == PAMTEST_ERR_OK) {
			err = PAMTEST_ERR_KEEPHANDLE;
		}
	}
	return err;
}

PAMTEST_API const struct pam_testcase *
_pamtest_failed_case(struct pam_testcase test_cases[], size_t num_test_cases)
{
	for (size_t i = 0; i < num_test_cases; i++) {
		if (test_cases[i].op_rv != test_cases[i].expected_rv) {
			return &test_cases[i];
		}
	}
	return NULL;
}

PAMTEST_API const char *pamtest_strerror(enum pamtest_err perr)
{
	/* upstream's words, which test output shows */
	switch (perr) {
	case PAMTEST_ERR_OK:
		return "Success";
	case PAMTEST_ERR_START:
		return "pam_start failed()";
	case PAMTEST_ERR_CASE:
		return "Unexpected testcase result";
	case PAMTEST_ERR_OP:
		return "Could not run a test case";
	case PAMTEST_ERR_END:
		return "pam_end failed()";
	case PAMTEST_ERR_KEEPHANDLE:
	case PAMTEST_ERR_INTERNAL:
		return "Internal libpamtest error";
	}
	return "Unknown";
}

PAMTEST_API void pamtest_free_env(char **envlist)
{
	if (envlist == NULL) {
		return;
	}
	for (char **e = envlist; *e != NULL; e++) {
		free(*e);
	}
	free(envlist);
}
