/*
 * Helpers of the pam_wrapper tests: a private service directory and
 * password file per test, service files written from templates naming
 * the built modules, stderr captured around a call. Compiled into each
 * test (pamw_test.c). The one global is the test's own environment
 * (PAM_WRAPPER, PAM_WRAPPER_SERVICE_DIR), which setup sets and teardown
 * unsets.
 */
#ifndef PAMW_TEST_H
#define PAMW_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "cwrap_test.h"

#include <libpamtest.h>

struct pamw_test {
	char *dir;    /* the test's temporary directory */
	char *svcdir; /* dir/services: PAM_WRAPPER_SERVICE_DIR */
	char *passdb; /* dir/passdb */
};

/* A new directory, PAM_WRAPPER=1, PAM_WRAPPER_SERVICE_DIR set to its
 * services/ (which has an `other` service that denies everything), and a
 * password file with alice:secret:svc, bob:pw:other. */
int pamw_test_setup(void **state);
/* Everything removed, the variables unset. */
int pamw_test_teardown(void **state);

/* Write service `name`: text in which "@M@" is the directory of the
 * built modules and "@P@" the password file. */
void pamw_test_service(struct pamw_test *t, const char *name, const char *text);
void pamw_test_passdb(struct pamw_test *t, const char *text);

/* The built modules' directory (CWRAP_PAM_MODULE_DIR). */
const char *pamw_test_module_dir(void);

/* stderr into a file from begin to end; end gives what was written
 * (malloc'd) and puts stderr back. */
void pamw_test_capture_begin(void);
char *pamw_test_capture_end(void);

/* Run fn(arg) in a child process and give its result. For calls that make
 * libpam leak: a pam_start() whose service has no stack loses the
 * handle's module table (Linux-PAM 1.5.2), which the leak checks
 * (valgrind's, the sanitizer's) would report; the child is killed
 * instead of exiting. */
int pamw_test_in_child(int (*fn)(void *arg), void *arg);

/* Number of lines of text that contain needle. */
int pamw_test_count_lines(const char *text, const char *needle);

/* The value of NAME in a PAM environment list, or NULL. */
const char *pamw_test_env(char **envlist, const char *name);

#endif
