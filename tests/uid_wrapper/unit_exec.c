/*
 * Parsing of the UID_WRAPPER_INITIAL_* values (uwrap_initial.c), linked
 * directly: ids are whole decimal numbers below (uid_t)-1, group lists
 * have exactly the announced count.
 */
#include <stdint.h>

#include "cwrap_test.h"
#include "uwrap.h"

static void test_parse_id(void **state)
{
	static const struct {
		const char *s;
		bool ok;
		uint32_t v;
	} cases[] = {
	    {"0", true, 0},
	    {"1000", true, 1000},
	    {"4294967294", true, 4294967294u},
	    {"4294967295", false, 0}, /* (uid_t)-1 is not an id */
	    {"-1", false, 0},
	    {"+5", false, 0},
	    {" 5", false, 0},
	    {"5 ", false, 0},
	    {"", false, 0},
	    {"abc", false, 0},
	    {"12x", false, 0},
	    {"99999999999", false, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t v = 12345;
		bool ok = uwrap_parse_id(cases[i].s, &v);

		if (ok != cases[i].ok || (ok && v != cases[i].v)) {
			fail_msg("'%s': %d %u", cases[i].s, ok, v);
		}
	}
}

static void test_parse_groups(void **state)
{
	uint32_t g[4] = {0};

	(void)state;
	assert_true(uwrap_parse_groups("1,2,3", 3, g));
	assert_int_equal(g[0], 1);
	assert_int_equal(g[1], 2);
	assert_int_equal(g[2], 3);
	assert_true(uwrap_parse_groups("", 0, g));
	assert_true(uwrap_parse_groups("4294967294", 1, g));
	assert_int_equal(g[0], 4294967294u);
	/* a group is an id as UID_WRAPPER_INITIAL_RUID is one: leading
	 * zeros too, however many (tests/fuzz, uid_ids) */
	assert_true(uwrap_parse_groups("00000000000000001000,2", 2, g));
	assert_int_equal(g[0], 1000);
	assert_true(uwrap_parse_id("00000000000000001000", &g[1]));
	assert_int_equal(g[1], 1000);
	assert_false(uwrap_parse_groups("00000000004294967295", 1, g));
	assert_false(uwrap_parse_groups("1,2,3", 2, g)); /* too many */
	assert_false(uwrap_parse_groups("1,2", 3, g));	 /* too few */
	assert_false(uwrap_parse_groups("1,,3", 3, g));
	assert_false(uwrap_parse_groups("1,2,", 2, g));
	assert_false(uwrap_parse_groups(",1", 1, g));
	assert_false(uwrap_parse_groups("1;2", 2, g));
	assert_false(uwrap_parse_groups("x", 1, g));
	assert_false(uwrap_parse_groups("123456789012345678", 1, g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_id),
	    cmocka_unit_test(test_parse_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
