/*
 * src/common: environment parsing with range checks and the shared log
 * line (library, program, pid, function), tested with a test identity.
 */
#include "cwrap_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"
#include "cwrap_log.h"

const struct cwrap_lib cwrap_lib = {
    .name = "unit_common",
    .log_prefix = "UTEST",
    .env_prefix = "UNIT_COMMON",
};

/* Run `fn` in a child with stderr captured; returns what it printed. */
static char *run_capturing_stderr(void (*fn)(void))
{
	static char buf[4096];
	int pipefd[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], 2);
		fn();
		fflush(stderr);
		_exit(0);
	}
	close(pipefd[1]);
	while ((r = read(pipefd[0], buf + n, sizeof(buf) - 1 - n)) > 0) {
		n += (size_t)r;
	}
	close(pipefd[0]);
	buf[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return buf;
}

static void test_parse_long(void **state)
{
	long v = 0;

	(void)state;
	assert_true(cwrap_parse_long("10", 1, 254, &v));
	assert_int_equal(v, 10);
	assert_true(cwrap_parse_long("254", 1, 254, &v));
	assert_false(cwrap_parse_long("255", 1, 254, &v));
	assert_false(cwrap_parse_long("0", 1, 254, &v));
	assert_false(cwrap_parse_long("-3", 1, 254, &v));
	assert_false(cwrap_parse_long("12abc", 1, 254, &v));
	assert_false(cwrap_parse_long("", 1, 254, &v));
	assert_false(cwrap_parse_long(NULL, 1, 254, &v));
	assert_false(cwrap_parse_long("99999999999999999999999", 0, 10, &v));
	assert_int_equal(v, 254);
}

/* Digits only, leading zeros allowed, at most `max`; a span, not a
 * string (uid_wrapper's group lists are parsed in place). */
static void test_parse_digits(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_true(cwrap_parse_digits("4294967294", 10, 4294967294u, &v));
	assert_int_equal(v, 4294967294u);
	assert_false(cwrap_parse_digits("4294967295", 10, 4294967294u, &v));
	assert_true(cwrap_parse_digits("00000000000000001000", 20, 1000, &v));
	assert_int_equal(v, 1000);
	assert_true(cwrap_parse_digits("12,34", 2, 99, &v));
	assert_int_equal(v, 12);
	v = 7;
	assert_false(cwrap_parse_digits("", 0, 99, &v));
	assert_false(cwrap_parse_digits("+5", 2, 99, &v));
	assert_false(cwrap_parse_digits(" 5", 2, 99, &v));
	assert_false(cwrap_parse_digits("-1", 2, 99, &v));
	assert_false(cwrap_parse_digits("5x", 2, 99, &v));
	assert_int_equal(v, 7);
}

static void test_env_long_defaults(void **state)
{
	(void)state;
	unsetenv("UNIT_COMMON_X");
	assert_int_equal(cwrap_env_long("UNIT_COMMON_X", 7, 1, 10), 7);
	setenv("UNIT_COMMON_X", "", 1);
	assert_int_equal(cwrap_env_long("UNIT_COMMON_X", 7, 1, 10), 7);
	setenv("UNIT_COMMON_X", "3", 1);
	assert_int_equal(cwrap_env_long("UNIT_COMMON_X", 7, 1, 10), 3);
	unsetenv("UNIT_COMMON_X");
}

static void bad_value_child(void)
{
	setenv("UNIT_COMMON_X", "300", 1);
	if (cwrap_env_long("UNIT_COMMON_X", 7, 1, 254) != 7) {
		_exit(3);
	}
}

static void test_env_long_bad_value_one_line(void **state)
{
	char *out = run_capturing_stderr(bad_value_child);
	char expect[64];

	(void)state;
	snprintf(expect, sizeof(expect), "UTEST_ERROR(unit_common[");
	assert_non_null(strstr(out, expect));
	assert_non_null(strstr(out, "cwrap_env_long: UNIT_COMMON_X='300'"));
	assert_non_null(strstr(out, "1..254, using 7"));
	/* exactly one line */
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void test_env_true(void **state)
{
	(void)state;
	unsetenv("UNIT_COMMON_B");
	assert_false(cwrap_env_true("UNIT_COMMON_B"));
	setenv("UNIT_COMMON_B", "0", 1);
	assert_false(cwrap_env_true("UNIT_COMMON_B"));
	setenv("UNIT_COMMON_B", "1", 1);
	assert_true(cwrap_env_true("UNIT_COMMON_B"));
	unsetenv("UNIT_COMMON_B");
}

static void levels_child(void)
{
	setenv("UNIT_COMMON_DEBUGLEVEL", "1", 1);
	CWRAP_ERROR("an error %d", 1);
	CWRAP_WARN("a warning %s", "here");
	CWRAP_DEBUG("not shown %d", 2);
	CWRAP_TRACE("not shown either");
}

static void test_log_levels_and_format(void **state)
{
	char *out = run_capturing_stderr(levels_child);
	char expect[128];

	(void)state;
	snprintf(expect, sizeof(expect), "UTEST_ERROR(unit_common[%s", "");
	assert_non_null(strstr(out, expect));
	assert_non_null(strstr(out, "]) - levels_child: an error 1\n"));
	assert_non_null(strstr(out, "UTEST_WARN(unit_common["));
	assert_non_null(strstr(out, "]) - levels_child: a warning here\n"));
	assert_null(strstr(out, "not shown"));
}

static void bad_level_child(void)
{
	setenv("UNIT_COMMON_DEBUGLEVEL", "high", 1);
	CWRAP_DEBUG("not shown");
	CWRAP_ERROR("still shown");
}

static void test_log_bad_level_falls_back(void **state)
{
	char *out = run_capturing_stderr(bad_level_child);

	(void)state;
	assert_non_null(strstr(
	    out,
	    "UNIT_COMMON_DEBUGLEVEL='high' is not a level 0..3 or error, warn, "
	    "debug, trace; using 0\n"));
	assert_non_null(strstr(out, "still shown"));
	assert_null(strstr(out, "not shown"));
}

static void named_levels_child(void)
{
	static const struct {
		const char *value;
		int level;
	} named[] = {
	    {"error", CWRAP_LOG_ERROR},	 {"ERROR", CWRAP_LOG_ERROR},
	    {"warn", CWRAP_LOG_WARN},	 {"Warning", CWRAP_LOG_WARN},
	    {"WARNING", CWRAP_LOG_WARN}, {"debug", CWRAP_LOG_DEBUG},
	    {"Debug", CWRAP_LOG_DEBUG},	 {"trace", CWRAP_LOG_TRACE},
	    {"TrAcE", CWRAP_LOG_TRACE},	 {"2", CWRAP_LOG_DEBUG},
	    {"1000", CWRAP_LOG_TRACE},
	};

	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(named); i++) {
		setenv("UNIT_COMMON_DEBUGLEVEL", named[i].value, 1);
		if (cwrap_log_level() != named[i].level) {
			fprintf(stderr, "'%s' read as %d\n", named[i].value,
				cwrap_log_level());
		}
	}
	/* Neither a number nor a name: the one-line error, level 0. */
	setenv("UNIT_COMMON_DEBUGLEVEL", "warnings", 1);
	CWRAP_WARN("not shown");
	setenv("UNIT_COMMON_DEBUGLEVEL", "trace", 1);
	CWRAP_TRACE("trace by name shown");
}

/* error, warn/warning, debug, trace in any case, besides the numbers. */
static void test_log_level_names(void **state)
{
	char *out = run_capturing_stderr(named_levels_child);

	(void)state;
	assert_null(strstr(out, " read as "));
	assert_non_null(strstr(out, "UNIT_COMMON_DEBUGLEVEL='warnings' is not "
				    "a level 0..3 or error, warn, debug, "
				    "trace; using 0\n"));
	assert_null(strstr(out, "not shown"));
	assert_non_null(strstr(out, "trace by name shown"));
}

static void high_level_child(void)
{
	setenv("UNIT_COMMON_DEBUGLEVEL", "9", 1);
	CWRAP_TRACE("trace shown");
}

/* Upstream reads a level above 3 as "everything": no complaint. */
static void test_log_level_above_trace_is_everything(void **state)
{
	char *out = run_capturing_stderr(high_level_child);

	(void)state;
	assert_non_null(strstr(out, "UTEST_TRACE("));
	assert_non_null(strstr(out, "trace shown"));
	assert_null(strstr(out, "ERROR"));
}

static void changing_level_child(void)
{
	unsetenv("UNIT_COMMON_DEBUGLEVEL");
	CWRAP_DEBUG("debug A");
	setenv("UNIT_COMMON_DEBUGLEVEL", "2", 1);
	CWRAP_DEBUG("debug B");
	CWRAP_TRACE("trace C");
	static char level3[] = "UNIT_COMMON_DEBUGLEVEL=3";

	putenv(level3);
	CWRAP_TRACE("trace D");
	unsetenv("UNIT_COMMON_DEBUGLEVEL");
	CWRAP_DEBUG("debug E");
}

/* The level is read again after every change of the environment. */
static void test_log_level_follows_environment(void **state)
{
	char *out = run_capturing_stderr(changing_level_child);

	(void)state;
	assert_null(strstr(out, "debug A"));
	assert_non_null(strstr(out, "debug B"));
	assert_null(strstr(out, "trace C"));
	assert_non_null(strstr(out, "trace D"));
	assert_null(strstr(out, "debug E"));
}

static void test_env_gen_moves_on_change(void **state)
{
	static char fake[] = "UNIT_COMMON_FAKE=1";
	static char *fake_env[] = {fake, NULL};
	char **saved;
	unsigned long g0, g1, g2, g3, g4;

	(void)state;
	g0 = cwrap_env_gen();
	assert_int_not_equal(g0, 0);
	assert_int_equal(cwrap_env_gen(), g0);
	setenv("UNIT_COMMON_GEN", "1", 1);
	g1 = cwrap_env_gen();
	assert_int_not_equal(g1, g0);
	/* Overwriting a value in place leaves environ as it was: still seen. */
	setenv("UNIT_COMMON_GEN", "2", 1);
	g2 = cwrap_env_gen();
	assert_int_not_equal(g2, g1);
	unsetenv("UNIT_COMMON_GEN");
	g3 = cwrap_env_gen();
	assert_int_not_equal(g3, g2);
	assert_int_equal(cwrap_env_gen(), g3);
	/* environ replaced by hand, without any of the functions (taken only
	 * now: setenv() may have moved and freed the array). */
	saved = environ;
	environ = fake_env;
	g4 = cwrap_env_gen();
	assert_int_not_equal(g4, g3);
	assert_string_equal(getenv("UNIT_COMMON_FAKE"), "1");
	environ = saved;
	assert_int_not_equal(cwrap_env_gen(), g4);
}

static void errno_child(void)
{
	setenv("UNIT_COMMON_DEBUGLEVEL", "3", 1);
	errno = EADDRINUSE;
	CWRAP_TRACE("keeps errno");
	if (errno != EADDRINUSE) {
		_exit(4);
	}
}

static void test_log_keeps_errno(void **state)
{
	char *out = run_capturing_stderr(errno_child);

	(void)state;
	assert_non_null(strstr(out, "UTEST_TRACE("));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_long),
	    cmocka_unit_test(test_parse_digits),
	    cmocka_unit_test(test_env_long_defaults),
	    cmocka_unit_test(test_env_long_bad_value_one_line),
	    cmocka_unit_test(test_env_true),
	    cmocka_unit_test(test_log_levels_and_format),
	    cmocka_unit_test(test_log_bad_level_falls_back),
	    cmocka_unit_test(test_log_level_above_trace_is_everything),
	    cmocka_unit_test(test_log_level_names),
	    cmocka_unit_test(test_log_level_follows_environment),
	    cmocka_unit_test(test_env_gen_moves_on_change),
	    cmocka_unit_test(test_log_keeps_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
