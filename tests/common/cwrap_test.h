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
