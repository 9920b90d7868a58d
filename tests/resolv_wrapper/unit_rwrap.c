/*
 * resolv_wrapper's logic linked directly: names, queries and questions
 * (malformed ones included), the record file's parser and index, answers
 * cut to every buffer size (each one still a message ns_initparse reads),
 * and the resolv.conf parser's limits.
 */
#include "rwrap.h"
#include "cwrap_lib.h"
#include "rwrap_test.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cwrap_lib cwrap_lib = {
    .name = "unit_rwrap",
    .log_prefix = "RWRAP",
    .env_prefix = "RESOLV_WRAPPER",
};

static void test_names(void **state)
{
	char key[256], long_label[80], long_name[300];

	(void)state;
	assert_true(rwrap_name_valid("a.b.c"));
	assert_true(rwrap_name_valid("a.b.c."));
	assert_true(rwrap_name_valid("."));
	assert_false(rwrap_name_valid(""));
	assert_false(rwrap_name_valid(".a"));
	assert_false(rwrap_name_valid("a..b"));
	assert_false(rwrap_name_valid("a.."));
	memset(long_label, 'x', 64);
	long_label[64] = '\0';
	assert_false(rwrap_name_valid(long_label));
	long_label[63] = '\0';
	assert_true(rwrap_name_valid(long_label));
	for (int i = 0; i < 127; i++) {
		memcpy(long_name + 2 * i, "a.", 2);
	}
	long_name[253] = '\0'; /* 127 labels, 253 bytes */
	assert_true(rwrap_name_valid(long_name));
	long_name[253] = 'b';
	long_name[254] = '\0';
	assert_false(rwrap_name_valid(long_name));
	rwrap_name_key("DC.Cwrap.ORG.", key, sizeof(key));
	assert_string_equal(key, "dc.cwrap.org");
}

static void test_query_roundtrip(void **state)
{
	uint8_t q[512];
	struct rwrap_question qu;
	int n;

	(void)state;
	n = rwrap_mkquery(0x1234, true, "_ldap._tcp.Cwrap.org.", ns_c_in,
			  ns_t_srv, q, sizeof(q));
	assert_true(n > 12);
	assert_true(rwrap_parse_question(q, (size_t)n, &qu));
	assert_int_equal(qu.id, 0x1234);
	assert_true(qu.rd);
	assert_string_equal(qu.name, "_ldap._tcp.Cwrap.org");
	assert_int_equal(qu.qtype, ns_t_srv);
	assert_int_equal(qu.qclass, ns_c_in);
	assert_int_equal(qu.end, (size_t)n);
	/* too small a buffer, a bad name */
	assert_int_equal(rwrap_mkquery(1, true, "a.b", 1, 1, q, 12), -1);
	assert_int_equal(rwrap_mkquery(1, true, "a..b", 1, 1, q, sizeof(q)),
			 -1);
	/* every truncation of a query is refused, never overread */
	for (int len = 0; len < n; len++) {
		assert_false(rwrap_parse_question(q, (size_t)len, &qu));
	}
	/* a compression pointer, a label with a NUL, no question */
	{
		uint8_t bad[] = {0, 1, 1, 0,	0,    1, 0, 0, 0,
				 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1};
		uint8_t nul[] = {0, 1, 1, 0,   0, 1, 0, 0, 0, 0,
				 0, 0, 2, 'a', 0, 0, 0, 1, 0, 1};
		uint8_t none[] = {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};

		assert_false(rwrap_parse_question(bad, sizeof(bad), &qu));
		assert_false(rwrap_parse_question(nul, sizeof(nul), &qu));
		assert_false(rwrap_parse_question(none, sizeof(none), &qu));
	}
	/* a label with a dot in it ("a.b" as one label): its text would
	 * read back as two, and the answer would echo another question */
	{
		uint8_t dot[] = {0, 1, 1,   0,	 0,   1, 0, 0, 0, 0, 0,
				 0, 3, 'a', '.', 'b', 0, 0, 1, 0, 1};

		assert_false(rwrap_parse_question(dot, sizeof(dot), &qu));
	}
}

static const char records[] = "A dc.cwrap.org 127.0.0.10\n"
			      "A dc.cwrap.org 127.0.0.11\n"
			      "AAAA dc.cwrap.org fd00::5357:5f0a\n"
			      "CNAME loop1.cwrap.org loop2.cwrap.org\n"
			      "CNAME loop2.cwrap.org loop1.cwrap.org\n"
			      "SRV _ldap._tcp.cwrap.org dc.cwrap.org 389\n"
			      "SRV _ldap._tcp.cwrap.org dc.cwrap.org 3268 2 5\n"
			      "TXT cwrap.org   spaces  inside   kept   \n"
			      "URI _u.cwrap.org http://x/ 1\n"
			      "MX cwrap.org dc.cwrap.org 5 # a comment\n";

static int answer(struct rwrap_db *db, const char *name, int type, uint8_t *out,
		  size_t cap)
{
	struct rwrap_question q = {
	    .id = 7, .rd = true, .qtype = (uint16_t)type, .qclass = ns_c_in};

	snprintf(q.name, sizeof(q.name), "%s", name);
	return rwrap_db_answer(db, &q, out, cap);
}

static void test_db(void **state)
{
	struct rwrap_db *db =
	    rwrap_db_parse("records", records, strlen(records));
	uint8_t out[4096];
	char *text;
	int n;

	(void)state;
	assert_non_null(db);
	assert_int_equal(rwrap_db_count(db), 10);
	n = answer(db, "cwrap.org", ns_t_txt, out, sizeof(out));
	text = rwrap_test_answers(out, n);
	assert_string_equal(text, "TXT spaces  inside   kept;");
	free(text);
	n = answer(db, "cwrap.org", ns_t_mx, out, sizeof(out));
	text = rwrap_test_answers(out, n);
	assert_string_equal(text, "MX 5 dc.cwrap.org;");
	free(text);
	n = answer(db, "_ldap._tcp.cwrap.org", ns_t_srv, out, sizeof(out));
	text = rwrap_test_format(out, n);
	/* the target's addresses once, though two records name it */
	assert_string_equal(
	    text, "rcode=0\n"
		  "qd _ldap._tcp.cwrap.org SRV\n"
		  "an _ldap._tcp.cwrap.org SRV 1 100 389 dc.cwrap.org\n"
		  "an _ldap._tcp.cwrap.org SRV 2 5 3268 dc.cwrap.org\n"
		  "ar dc.cwrap.org A 127.0.0.10\n"
		  "ar dc.cwrap.org A 127.0.0.11\n"
		  "ar dc.cwrap.org AAAA fd00::5357:5f0a\n");
	free(text);
	/* ANY: every record of the name */
	n = answer(db, "dc.cwrap.org", ns_t_any, out, sizeof(out));
	text = rwrap_test_answers(out, n);
	assert_string_equal(text,
			    "A 127.0.0.10;A 127.0.0.11;AAAA fd00::5357:5f0a;");
	free(text);
	/* a CNAME loop ends (16 links), and the answer still parses */
	n = answer(db, "loop1.cwrap.org", ns_t_a, out, sizeof(out));
	assert_true(n > 0);
	text = rwrap_test_format(out, n);
	assert_non_null(strstr(text, "CNAME loop2.cwrap.org"));
	free(text);
	/* every buffer size: whole records only, TC set, parseable */
	n = answer(db, "_ldap._tcp.cwrap.org", ns_t_srv, out, sizeof(out));
	for (size_t cap = 12; cap < (size_t)n; cap++) {
		uint8_t small[4096];
		int m =
		    answer(db, "_ldap._tcp.cwrap.org", ns_t_srv, small, cap);
		ns_msg msg;

		assert_true(m >= 12 && (size_t)m <= cap);
		if (ns_initparse(small, m, &msg) != 0) {
			fail_msg("cap %zu: %d bytes do not parse: %02x%02x "
				 "%02x%02x %02x%02x %02x%02x %02x%02x %02x%02x",
				 cap, m, small[0], small[1], small[2], small[3],
				 small[4], small[5], small[6], small[7],
				 small[8], small[9], small[10], small[11]);
		}
		assert_int_equal(ns_initparse(small, m, &msg), 0);
		assert_int_equal(ns_msg_getflag(msg, ns_f_tc), 1);
	}
	assert_int_equal(answer(db, "x", ns_t_a, out, 11), -1);
	/* a class other than IN: known name, nothing */
	{
		struct rwrap_question q = {
		    .id = 1, .qtype = ns_t_a, .qclass = ns_c_chaos};

		snprintf(q.name, sizeof(q.name), "DC.cwrap.org");
		n = rwrap_db_answer(db, &q, out, sizeof(out));
		assert_int_equal(out[3] & 0x0f, ns_r_noerror);
		assert_int_equal(out[7], 0);
	}
	rwrap_db_free(db);
	/* an empty file, a file of nothing but junk */
	db = rwrap_db_parse("empty", "", 0);
	assert_non_null(db);
	n = answer(db, "dc.cwrap.org", ns_t_a, out, sizeof(out));
	assert_int_equal(out[3] & 0x0f, ns_r_nxdomain);
	rwrap_db_free(db);
	db = rwrap_db_parse("junk", "\n\n#x\n  \t \nA\nA a\nZZZ a b\n", 25);
	assert_non_null(db);
	assert_int_equal(rwrap_db_count(db), 0);
	rwrap_db_free(db);
}

static void test_db_large(void **state)
{
	size_t cap = 40 * 100000;
	char *text = malloc(cap), *p = text;
	struct rwrap_db *db;
	uint8_t out[512];
	char *a;
	int n;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		p += sprintf(p, "A h%d.x 10.%d.%d.%d\n", i, i >> 16,
			     (i >> 8) & 255, i & 255);
	}
	db = rwrap_db_parse("large", text, (size_t)(p - text));
	assert_int_equal(rwrap_db_count(db), 100000);
	n = answer(db, "h99999.x", ns_t_a, out, sizeof(out));
	a = rwrap_test_answers(out, n);
	assert_string_equal(a, "A 10.1.134.159;");
	free(a);
	rwrap_db_free(db);
	free(text);
}

static void test_conf(void **state)
{
	struct rwrap_conf c;
	char a[INET6_ADDRSTRLEN];

	(void)state;
	rwrap_conf_parse(
	    "rc",
	    "# comment\n; comment\n"
	    "nameserver 127.0.0.1\n"
	    "nameserver fd00::1\n"
	    "nameserver 127.0.0.3\n"
	    "nameserver 127.0.0.4\n"
	    "domain first.example\n"
	    "search a.example b.example c.example d.example e.example "
	    "f.example g.example\n"
	    "options ndots:40 timeout:0 attempts:9 rotate edns0 whatever\n"
	    "sortlist 10.0.0.0\n",
	    &c);
	assert_int_equal(c.nns, 3);
	assert_int_equal(c.ns[1].ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&c.ns[1])->sin6_addr, a,
		  sizeof(a));
	assert_string_equal(a, "fd00::1");
	assert_int_equal(ntohs(((struct sockaddr_in *)&c.ns[2])->sin_port), 53);
	assert_int_equal(c.nsearch, 6);
	assert_string_equal(c.search[0], "a.example");
	assert_int_equal(c.ndots, 15);
	assert_int_equal(c.timeout, 1);
	assert_int_equal(c.attempts, 5);
	assert_true(c.rotate);
	assert_true(c.edns0);
	/* domain after search wins, one domain */
	rwrap_conf_parse("rc", "search a.example b.example\ndomain d.example\n",
			 &c);
	assert_int_equal(c.nsearch, 1);
	assert_string_equal(c.search[0], "d.example");
	assert_int_equal(c.ndots, 1);
	assert_int_equal(c.timeout, 5);
	assert_int_equal(c.attempts, 2);
	/* bad addresses are left out */
	rwrap_conf_parse(
	    "rc",
	    "nameserver 300.1.1.1\nnameserver\nnameserver fe80::1%nosuchif\n"
	    "nameserver fe80::1%1\n",
	    &c);
	assert_int_equal(c.nns, 1);
	assert_int_equal(((struct sockaddr_in6 *)&c.ns[0])->sin6_scope_id, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_query_roundtrip),
	    cmocka_unit_test(test_db),
	    cmocka_unit_test(test_db_large),
	    cmocka_unit_test(test_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
