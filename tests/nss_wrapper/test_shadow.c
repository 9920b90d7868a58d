/*
 * Shadow entries under the preloaded nss_wrapper: getspnam with every
 * field (empty numbers are -1, an empty flag ~0), the enumeration in file
 * order with lookups in between, malformed lines skipped.
 */
#include <errno.h>
#include <shadow.h>

#include "nwrap_test.h"

static void test_getspnam(void **state)
{
	struct spwd *sp;

	(void)state;
	assert_true(nt_wrapper_bool("nss_wrapper_shadow_enabled"));
	sp = getspnam("bob");
	assert_non_null(sp);
	assert_string_equal(sp->sp_namp, "bob");
	assert_string_equal(sp->sp_pwdp, "$6$salt$hash");
	assert_int_equal(sp->sp_lstchg, 19000);
	assert_int_equal(sp->sp_min, 0);
	assert_int_equal(sp->sp_max, 99999);
	assert_int_equal(sp->sp_warn, 7);
	assert_int_equal(sp->sp_inact, -1);
	assert_int_equal(sp->sp_expire, -1);
	assert_true(sp->sp_flag == ~0UL);

	sp = getspnam("alice");
	assert_non_null(sp);
	assert_string_equal(sp->sp_pwdp, "!");
	assert_int_equal(sp->sp_min, -1);
	assert_int_equal(sp->sp_expire, 20000);
	assert_true(sp->sp_flag == 0);

	assert_null(getspnam("carol")); /* malformed: missing fields */
	assert_null(getspnam("nosuch"));
}

static void test_enumeration(void **state)
{
	static const char *const order[] = {"bob", "alice", "root"};
	struct spwd *sp;
	size_t n = 0;

	(void)state;
	setspent();
	while ((sp = getspent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(order));
		assert_string_equal(sp->sp_namp, order[n]);
		n++;
		assert_non_null(getspnam("root"));
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(order));
	endspent();
	sp = getspent();
	assert_non_null(sp);
	assert_string_equal(sp->sp_namp, "bob");
	endspent();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_getspnam),
	    cmocka_unit_test(test_enumeration),
	};

	nt_file("shadow",
		"bob:$6$salt$hash:19000:0:99999:7:::\n"
		"carol:x:1\n"
		"alice:!:19001:::::20000:0\n"
		"root:*:1:2:3:4:5:6:\n",
		"NSS_WRAPPER_SHADOW");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
