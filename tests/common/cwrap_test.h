/*
 * Helpers shared by the tests: temporary directories, small files, running
 * a command and reading what it printed. No global state.
 */
#ifndef CWRAP_TEST_H
#define CWRAP_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cwrap_config.h" /* the platform's HAVE_*: tests of what it lacks skip */

/* A new directory under $TMPDIR (or /tmp), named after `tag`; malloc'd. */
char *cwrap_test_mkdtemp(const char *tag);

/* Remove `path` and everything below it. */
void cwrap_test_rmtree(const char *path);

/* Write `content` to `path` (created or truncated); asserts success. */
void cwrap_test_write_file(const char *path, const char *content);

/* Whole content of `path`, NUL-terminated, malloc'd; NULL if unreadable. */
char *cwrap_test_read_file(const char *path, size_t *len);

/* Path of `name` in dir, malloc'd. */
char *cwrap_test_path(const char *dir, const char *name);

/* Whether the system's programs (/bin/sh, id, ...) would load the
 * wrappers this test preloads: false where another dynamic loader runs
 * them than this build's programs (CWRAP_FOREIGN_PROGRAMS, set by
 * cmake/CwrapTest.cmake): in the i686 build on an x86_64 host the loader
 * ignores the 32-bit libraries, in a musl build on a glibc system it
 * cannot start the program at all. A case that runs such a program under
 * the wrapper skips then. */
int cwrap_test_host_programs_wrapped(void);

/* Whether the system's programs start at all with the wrappers this test
 * preloads: false in a musl build on a glibc system. */
int cwrap_test_host_programs_start(void);

/* system(cmd) without LD_PRELOAD (for a check by the system's tools, such
 * as tshark reading a capture): the wait status. */
int cwrap_test_system_unwrapped(const char *cmd);

/* How long a wait for something that should come (an answer from
 * another process or thread, a relay's work) gives it before the test
 * fails, in milliseconds: CWRAP_TEST_WAIT seconds, 60 by default, as the
 * scripts' wait_limit (tests/common/wait.sh). The wait ends when it comes,
 * so an idle run is as fast, and a loaded machine may be slow. A wait that
 * something does NOT come keeps its own short time. */
int cwrap_test_wait_ms(void);

/* CLOCK_MONOTONIC in seconds. */
double cwrap_test_now(void);

/* A stress loop's rounds: `max` of them, as an ordinary machine runs in
 * a fraction of a second; but once `min` are done, none starts more than
 * 2 s after the first (cwrap_test_rounds_start()), where the machine is
 * slow: valgrind runs one thread at a time, and a fork or a thread costs
 * it half a second on a loaded machine. A slow run checks fewer rounds,
 * each as strictly, instead of timing out.
 *   for (struct cwrap_test_rounds r = cwrap_test_rounds_start(5, 40);
 *        cwrap_test_rounds_next(&r);) { ... r.round is this round's index, from 0 } */
struct cwrap_test_rounds {
	int round, min, max;
	double start;
};
struct cwrap_test_rounds cwrap_test_rounds_start(int min, int max);
int cwrap_test_rounds_next(struct cwrap_test_rounds *r);

/* skip() the current case unless the system's shell starts with the
 * wrappers preloaded (system(), popen(), a script). */
#define CWRAP_TEST_NEED_HOST_SHELL()                                           \
	do {                                                                   \
		if (!cwrap_test_host_programs_start()) {                       \
			skip();                                                \
		}                                                              \
	} while (0)

/* skip() the current case unless cwrap_test_host_programs_wrapped(). */
#define CWRAP_TEST_NEED_HOST_PROGRAMS()                                        \
	do {                                                                   \
		if (!cwrap_test_host_programs_wrapped()) {                     \
			skip();                                                \
		}                                                              \
	} while (0)

#endif
