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
 * wrappers this test preloads: false in the i686 build on an x86_64 host,
 * where the loader ignores 32-bit libraries in 64-bit programs. A case
 * that judges what such a program does under the wrapper skips then. */
int cwrap_test_host_programs_wrapped(void);

/* skip() the current case unless cwrap_test_host_programs_wrapped(). */
#define CWRAP_TEST_NEED_HOST_PROGRAMS()                                        \
	do {                                                                   \
		if (!cwrap_test_host_programs_wrapped()) {                     \
			skip();                                                \
		}                                                              \
	} while (0)

#endif
