/*
 * The rule parser of SOCKET_WRAPPER_FAULTS (faults/swrap_faults_rules.c),
 * linked directly: every form of the grammar, and malformed lines refused.
 */
#include <arpa/inet.h>
#include <string.h>

#include "cwrap_lib.h"
#include "cwrap_test.h"
#include "faults/swrap_fx.h"

const struct cwrap_lib cwrap_lib = {
    .name = "socket_wrapper",
    .log_prefix = "SWRAP",
    .env_prefix = "SOCKET_WRAPPER",
};

static struct swrap_fx_rule parse_ok(const char *line)
{
	struct swrap_fx_rule r;

	assert_int_equal(swrap_fx_parse_line(line, "rules", 1, &r), 1);
	return r;
}

static void test_forms(void **state)
{
	struct swrap_fx_rule r;
	uint8_t v6[16];

	(void)state;
	r = parse_ok("tcp 127.0.0.10:80 delay 200");
	assert_int_equal(r.proto, SOCK_STREAM);
	assert_int_equal(r.family, AF_INET);
	assert_int_equal(r.port, 80);
	assert_int_equal(r.kind, SWRAP_FX_DELAY);
	assert_int_equal(r.arg, 200);
	assert_int_equal(r.dir, SWRAP_FX_TO | SWRAP_FX_FROM);
	assert_int_equal(r.prob, 10000);

	r = parse_ok("udp *:53 loss 50 # half");
	assert_int_equal(r.proto, SOCK_DGRAM);
	assert_int_equal(r.family, 0);
	assert_int_equal(r.port, 53);
	assert_int_equal(r.arg, 5000);

	r = parse_ok("tcp 127.0.0.10:7 from close after 5");
	assert_int_equal(r.dir, SWRAP_FX_FROM);
	assert_int_equal(r.kind, SWRAP_FX_CLOSE);
	assert_int_equal(r.arg, 5);

	r = parse_ok("any [fd00::5357:5f0a]:80 to reset after 200ms "
		     "probability 12.5");
	assert_int_equal(r.proto, 0);
	assert_int_equal(r.family, AF_INET6);
	inet_pton(AF_INET6, "fd00::5357:5f0a", v6);
	assert_memory_equal(r.addr, v6, 16);
	assert_int_equal(r.dir, SWRAP_FX_TO);
	assert_true(r.after_ms);
	assert_int_equal(r.arg, 200);
	assert_int_equal(r.prob, 1250);

	r = parse_ok("tcp fd00::5357:5f0a both reset after 1000");
	assert_int_equal(r.port, 0);
	assert_false(r.after_ms);
	assert_true(r.has_after);
	assert_int_equal(r.arg, 1000);

	r = parse_ok("  tcp\t*\tdelay 100 20\r");
	assert_int_equal(r.arg2, 20);
	r = parse_ok("tcp 127.0.0.10 refuse");
	assert_int_equal(r.kind, SWRAP_FX_REFUSE);
	r = parse_ok("tcp * blackhole");
	r = parse_ok("tcp * reset");
	assert_false(r.has_after);
	r = parse_ok("tcp * slice 1");
	r = parse_ok("udp * duplicate 100%");
	assert_int_equal(r.arg, 10000);
	r = parse_ok("udp * reorder 0.5");
	assert_int_equal(r.arg, 50);
	r = parse_ok("tcp * rate 102400");
	assert_int_equal(r.arg, 102400);
}

static void test_blank(void **state)
{
	struct swrap_fx_rule r;

	(void)state;
	assert_int_equal(swrap_fx_parse_line("", "f", 1, &r), 0);
	assert_int_equal(swrap_fx_parse_line("   # only a comment", "f", 2, &r),
			 0);
}

static void test_malformed(void **state)
{
	static const char *bad[] = {
	    "tcp",
	    "sctp * refuse",
	    "tcp 127.0.0.10:0 refuse",
	    "tcp 127.0.0.10:65536 refuse",
	    "tcp 300.0.0.1 refuse",
	    "tcp [fd00::1 refuse",
	    "tcp * explode",
	    "tcp * refuse now",
	    "tcp * delay",
	    "tcp * delay x",
	    "tcp * rate 0",
	    "udp * loss 101",
	    "udp * loss 1.234",
	    "tcp * reset after",
	    "tcp * reset after 10s",
	    "tcp * reset before 10",
	    "tcp * close 5",
	    "tcp * slice 0",
	    "tcp * refuse probability 200",
	    "tcp * to",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct swrap_fx_rule r;

		if (swrap_fx_parse_line(bad[i], "rules", (unsigned)i + 1, &r) !=
		    -1) {
			fail_msg("accepted: %s", bad[i]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_blank),
	    cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
