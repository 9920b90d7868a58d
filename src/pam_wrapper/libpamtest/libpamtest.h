/*
 * libpamtest: run a PAM service's operations in one call, for tests of
 * PAM modules and of the applications that use them (see pam_wrapper(1)).
 *
 * A test lists the operations to run, each with the result it expects;
 * _pamtest() starts a PAM transaction for the service and user, runs them
 * in order with a conversation that answers prompts from the caller's
 * lists, stores each result in the case's op_rv, stops at the first
 * result that differs from the expected one, and ends the transaction.
 *
 * This header is the binary interface of libpamtest.so.0: the enum
 * values, the order of the structures' fields and the functions' types
 * are those of every libpamtest, so that a program built against one runs
 * against another.
 */
#ifndef LIBPAMTEST_H
#define LIBPAMTEST_H

#include <stddef.h>
#include <security/pam_appl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The operation of a test case. */
enum pamtest_ops {
	PAMTEST_AUTHENTICATE,  /* pam_authenticate() */
	PAMTEST_SETCRED,       /* pam_setcred() */
	PAMTEST_ACCOUNT,       /* pam_acct_mgmt() */
	PAMTEST_OPEN_SESSION,  /* pam_open_session() */
	PAMTEST_CLOSE_SESSION, /* pam_close_session() */
	PAMTEST_CHAUTHTOK,     /* pam_chauthtok() */

	/* Not PAM calls: copy the PAM environment into case_out.envlist
	 * (free it with pamtest_free_env()); */
	PAMTEST_GETENVLIST = 20,
	/* skip pam_end() and return the handle in case_out.ph. */
	PAMTEST_KEEPHANDLE,
};

/* One operation and the result it must give. */
struct pam_testcase {
	enum pamtest_ops pam_operation;
	int expected_rv; /* a PAM_* result */
	int flags;	 /* the flags of the PAM call */
	int op_rv;	 /* what the call returned (set by _pamtest) */

	union {
		char **envlist;	  /* PAMTEST_GETENVLIST */
		pam_handle_t *ph; /* PAMTEST_KEEPHANDLE */
	} case_out;
};

/* Initialisers of a test case (the other fields zero; C and C++). */
#define pam_test(op, expected)                                                 \
	{                                                                      \
		op, expected, 0, 0,                                            \
		{                                                              \
			NULL                                                   \
		}                                                              \
	}
#define pam_test_flags(op, expected, flags)                                    \
	{                                                                      \
		op, expected, flags, 0,                                        \
		{                                                              \
			NULL                                                   \
		}                                                              \
	}

/* What _pamtest() returns. */
enum pamtest_err {
	PAMTEST_ERR_OK,		/* every case gave its expected result */
	PAMTEST_ERR_START,	/* pam_start() failed */
	PAMTEST_ERR_CASE,	/* a case gave another result: see
				   pamtest_failed_case() */
	PAMTEST_ERR_OP,		/* a case names no known operation */
	PAMTEST_ERR_END,	/* pam_end() failed */
	PAMTEST_ERR_KEEPHANDLE, /* the handle could not be kept */
	PAMTEST_ERR_INTERNAL,	/* out of memory */
};

/* A conversation function, as in struct pam_conv. */
typedef int (*pam_conv_fn)(int num_msg, const struct pam_message **msg,
			   struct pam_response **resp, void *appdata_ptr);

/* The answers and the messages of the default conversation. */
struct pamtest_conv_data {
	/* NULL-terminated answers, taken in order, for PAM_PROMPT_ECHO_OFF
	 * and PAM_PROMPT_ECHO_ON prompts */
	const char **in_echo_off;
	const char **in_echo_on;

	/* PAM_ERROR_MSG and PAM_TEXT_INFO messages are copied, in order,
	 * into the buffers these arrays point to (each at least
	 * PAM_MAX_MSG_SIZE bytes); NULL drops them */
	char **out_err;
	char **out_info;
};

enum pamtest_err _pamtest_conv(const char *service, const char *user,
			       pam_conv_fn conv_fn, void *conv_userdata,
			       struct pam_testcase test_cases[],
			       size_t num_test_cases, pam_handle_t *pam_handle);

enum pamtest_err _pamtest(const char *service, const char *user,
			  struct pamtest_conv_data *conv_data,
			  struct pam_testcase test_cases[],
			  size_t num_test_cases, pam_handle_t *pam_handle);

/* The first case whose result differs from the expected one, or NULL. */
const struct pam_testcase *
_pamtest_failed_case(struct pam_testcase test_cases[], size_t num_test_cases);

/* A message for each enum pamtest_err value. */
const char *pamtest_strerror(enum pamtest_err perr);

/* Free an envlist of PAMTEST_GETENVLIST (NULL is fine). */
void pamtest_free_env(char **envlist);

#define PAMTEST_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define run_pamtest_conv(service, user, conv_fn, conv_data, test_cases,        \
			 pam_handle)                                           \
	_pamtest_conv(service, user, conv_fn, conv_data, test_cases,           \
		      PAMTEST_ARRAY_SIZE(test_cases), pam_handle)

#define run_pamtest(service, user, conv_data, test_cases, pam_handle)          \
	_pamtest(service, user, conv_data, test_cases,                         \
		 PAMTEST_ARRAY_SIZE(test_cases), pam_handle)

#define pamtest_failed_case(test_cases)                                        \
	_pamtest_failed_case(test_cases, PAMTEST_ARRAY_SIZE(test_cases))

#ifdef __cplusplus
}
#endif

#endif
