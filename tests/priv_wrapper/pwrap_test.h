/*
 * Helpers of the priv_wrapper tests: a call made in a child process, with
 * the wrapper as configured or with PRIV_WRAPPER unset (the kernel's own
 * answer, which may change the child: a real chroot as root, a seccomp
 * filter), what a function printed on stderr, and the variables set for
 * one case. No global state.
 */
#ifndef PWRAP_TEST_H
#define PWRAP_TEST_H

#include "cwrap_compiler.h"
#include "cwrap_test.h"

#include <stdbool.h>

/* What a call gave, and what the caller observed after it. */
struct pwrap_outcome {
	long rc;
	int err;      /* errno when rc == -1 */
	long seen[4]; /* the case's own observations */
	int signal;   /* the signal that ended the child, or 0 */
};

/* Run fn in a child: natively (PRIV_WRAPPER unset first) or wrapped as
 * the environment says now; the child's outcome. */
struct pwrap_outcome
pwrap_test_child(bool native, void (*fn)(struct pwrap_outcome *o, void *arg),
		 void *arg);

/* The kernel refused with `err` (native), and so did the wrapped call. */
void pwrap_test_expect_both_refused(const struct pwrap_outcome *native,
				    const struct pwrap_outcome *wrapped,
				    int err);

/* Whether this runs as root (for which the kernel allows more). */
bool pwrap_test_is_root(void);

/* Enable the wrapper with these values (NULL: unset). */
void pwrap_test_env(const char *chroot_disable, const char *prctl_disable,
		    const char *setrlimit_disable);

/* Unset every PRIV_WRAPPER_* variable and PRIV_WRAPPER. */
void pwrap_test_env_clear(void);

/* What fn(arg) wrote on file descriptor 2, NUL-terminated, malloc'd. */
char *pwrap_test_stderr(void (*fn)(void *arg), void *arg);

/* Whether this runs under valgrind, which answers some calls itself
 * instead of the kernel (seccomp(2) is ENOSYS, a filter is refused, the
 * RLIMIT_NOFILE hard limit cannot be lowered): a case comparing with the
 * kernel there skips, saying so. */
bool pwrap_test_valgrind_answers(const char *what);

/* Occurrences of `needle` in `s`. */
int pwrap_test_count(const char *s, const char *needle);

#endif
