/*
 * The conversation of libpamtest: see pamtest_int.h. Its state is the
 * caller's (one per run); nothing global.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pamtest_int.h"

static const char *pamtest_next(const char *const *list, size_t *used)
{
	if (list == NULL || list[*used] == NULL) {
		return NULL;
	}
	return list[(*used)++];
}

static void pamtest_free_responses(struct pam_response *r, int n)
{
	for (int i = 0; i < n; i++) {
		free(r[i].resp);
	}
	free(r);
}

int pamtest_conv(int num_msg, const struct pam_message **msg,
		 struct pam_response **resp, void *state)
{
	struct pamtest_conv_state *st = state;
	struct pam_response *r;

	if (num_msg <= 0 || num_msg > PAM_MAX_NUM_MSG || msg == NULL ||
	    st == NULL) {
		return PAM_CONV_ERR;
	}
	r = calloc((size_t)num_msg, sizeof(*r));
	if (r == NULL) {
		return PAM_BUF_ERR;
	}
	for (int i = 0; i < num_msg; i++) {
		const char *answer;

		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			answer = msg[i]->msg_style == PAM_PROMPT_ECHO_OFF
				     ? pamtest_next(st->echo_off, &st->off_used)
				     : pamtest_next(st->echo_on, &st->on_used);
			/* (a module that asks without taking the answer
			 * cannot be answered) */
			if (resp == NULL) {
				pamtest_free_responses(r, num_msg);
				return PAM_CONV_ERR;
			}
			/* none left: no answer, and no failure either, as
			 * upstream's; the module decides what that means */
			if (answer == NULL) {
				break;
			}
			r[i].resp = strdup(answer);
			if (r[i].resp == NULL) {
				pamtest_free_responses(r, num_msg);
				return PAM_BUF_ERR;
			}
			break;
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			if (st->sink != NULL && msg[i]->msg != NULL &&
			    !st->sink(st->sink_ctx, msg[i]->msg_style,
				      msg[i]->msg)) {
				pamtest_free_responses(r, num_msg);
				return PAM_BUF_ERR;
			}
			break;
		default:
			break;
		}
	}
	/* Some modules pass no response pointer for messages alone. */
	if (resp == NULL) {
		pamtest_free_responses(r, num_msg);
	} else {
		*resp = r;
	}
	return PAM_SUCCESS;
}
