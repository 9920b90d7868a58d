/*
 * libpamtest internals: the conversation that answers from lists, shared
 * by libpamtest's _pamtest() and pypamtest (which collects the messages
 * into Python tuples instead of the caller's buffers).
 */
#ifndef PAMTEST_INT_H
#define PAMTEST_INT_H

#include <stddef.h>

#include "libpamtest.h"

/* The library's exported functions (hidden where the sources are compiled
 * into pypamtest). */
#ifdef PAMTEST_STATIC
#define PAMTEST_API __attribute__((visibility("hidden")))
#else
#define PAMTEST_API __attribute__((visibility("default")))
#endif

struct pamtest_conv_state {
	/* NULL-terminated answers (NULL: none), and how many were used */
	const char *const *echo_off;
	const char *const *echo_on;
	size_t off_used, on_used;
	/* PAM_ERROR_MSG and PAM_TEXT_INFO messages go to sink (NULL: dropped);
	 * it returns false when it could not keep one (out of memory) */
	bool (*sink)(void *ctx, int style, const char *msg);
	void *sink_ctx;
};

/* A PAM conversation function over a struct pamtest_conv_state: prompts
 * get the next answer of their list (none left, or no list: a NULL
 * answer, and PAM_SUCCESS), messages go to the sink, other styles get no
 * answer. */
int pamtest_conv(int num_msg, const struct pam_message **msg,
		 struct pam_response **resp, void *state);

#endif
