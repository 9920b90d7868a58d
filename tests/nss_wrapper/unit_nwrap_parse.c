/*
 * Unit tests of the pure line parsers (nwrap_parse.c), linked directly.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cwrap_lib.h"
#include "cwrap_test.h"
#include "nwrap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "nss_wrapper",
    .log_prefix = "NWRAP",
    .env_prefix = "NSS_WRAPPER",
};

static int pw(const char *text, struct passwd *out, const char **why)
{
	static char line[512];

	snprintf(line, sizeof(line), "%s", text);
	*why = NULL;
	return nwrap_parse_passwd(line, out, why);
}

static void test_passwd(void **state)
{
	struct passwd p;
	const char *why;

	(void)state;
	assert_int_equal(pw("bob:x:1000:1001:Bob:/home/bob:/bin/sh", &p, &why),
			 1);
	assert_string_equal(p.pw_name, "bob");
	assert_int_equal(p.pw_uid, 1000);
	assert_int_equal(p.pw_gid, 1001);
	assert_string_equal(p.pw_shell, "/bin/sh");
	assert_int_equal(pw("a:::0:::", &p, &why), -1);
	assert_string_equal(why, "bad uid");
	assert_int_equal(pw("a:x:0:0:::", &p, &why), 1);
	assert_string_equal(p.pw_dir, "");
	assert_int_equal(pw("a:x:4294967295:0:::", &p, &why), -1);
	assert_int_equal(pw("a:x:4294967294:0:::", &p, &why), 1);
	assert_int_equal(pw("a:x:-1:0:::", &p, &why), -1);
	assert_int_equal(pw("a:x:1:z:::", &p, &why), -1);
	assert_string_equal(why, "bad gid");
	assert_int_equal(pw("a:x:1:2::", &p, &why), -1);
	assert_string_equal(why, "missing field");
	assert_int_equal(pw("a:x:1:2::::", &p, &why), -1);
	assert_string_equal(why, "too many fields");
	assert_int_equal(pw(":x:1:2:::", &p, &why), -1);
	assert_int_equal(pw("", &p, &why), 0);
	assert_int_equal(pw("   ", &p, &why), 0);
	assert_int_equal(pw("# bob:x:1:1:::", &p, &why), 0);
}

/* The packed list as "a|b|c". */
static const char *packed(const char *p, size_t n)
{
	static char out[256];
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++, p = nwrap_str_next(p)) {
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
				      i ? "|" : "", p);
	}
	return out;
}

static void test_group(void **state)
{
	char line[128];
	struct nwrap_grview g;
	const char *why;

	(void)state;
	strcpy(line, "wheel:x:10:a,b,,c,");
	assert_int_equal(nwrap_parse_group(line, &g, &why), 1);
	assert_int_equal(g.gid, 10);
	assert_string_equal(g.name, "wheel");
	assert_string_equal(g.passwd, "x");
	assert_int_equal(g.nmem, 3);
	assert_string_equal(packed(g.mem, g.nmem), "a|b|c");
	strcpy(line, "empty:x:11:");
	assert_int_equal(nwrap_parse_group(line, &g, &why), 1);
	assert_int_equal(g.nmem, 0);
	strcpy(line, "short:x:12");
	assert_int_equal(nwrap_parse_group(line, &g, &why), 1);
	assert_int_equal(g.nmem, 0);
	strcpy(line, ",,lead:x:13:,,x");
	assert_int_equal(nwrap_parse_group(line, &g, &why), 1);
	assert_string_equal(packed(g.mem, g.nmem), "x");
	strcpy(line, "bad:x:");
	assert_int_equal(nwrap_parse_group(line, &g, &why), -1);
	strcpy(line, "bad:x");
	assert_int_equal(nwrap_parse_group(line, &g, &why), -1);
	assert_string_equal(why, "missing field");
	strcpy(line, "bad:x:1:a:b");
	assert_int_equal(nwrap_parse_group(line, &g, &why), -1);
}

/* Every member list of up to 7 characters from {a, b, ','}: the members
 * are the non-empty pieces between commas, in order. */
static void test_group_members_exhaustive(void **state)
{
	(void)state;
	for (int len = 0; len <= 7; len++) {
		int total = 1;

		for (int k = 0; k < len; k++) {
			total *= 3;
		}
		for (int code = 0; code < total; code++) {
			char mem[8], line[32], want[32];
			struct nwrap_grview g;
			const char *why;
			size_t o = 0, n = 0;
			int c = code;

			for (int k = 0; k < len; k++, c /= 3) {
				mem[k] = "ab,"[c % 3];
			}
			mem[len] = '\0';
			for (int k = 0; k < len; k++) {
				if (mem[k] == ',') {
					continue;
				}
				if (k == 0 || mem[k - 1] == ',') {
					if (n++ > 0) {
						want[o++] = '|';
					}
				}
				want[o++] = mem[k];
			}
			want[o] = '\0';
			snprintf(line, sizeof(line), "g:x:1:%s", mem);
			assert_int_equal(nwrap_parse_group(line, &g, &why), 1);
			assert_int_equal(g.nmem, n);
			assert_string_equal(packed(g.mem, g.nmem), want);
		}
	}
}

static void test_shadow(void **state)
{
	char line[128];
	struct spwd s;
	const char *why;

	(void)state;
	strcpy(line, "bob:$6$x:19000:0:99999:7:::");
	assert_int_equal(nwrap_parse_shadow(line, &s, &why), 1);
	assert_int_equal(s.sp_lstchg, 19000);
	assert_int_equal(s.sp_inact, -1);
	assert_true(s.sp_flag == ~0UL);
	strcpy(line, "bob:x:abc:0:99999:7:::");
	assert_int_equal(nwrap_parse_shadow(line, &s, &why), -1);
	assert_string_equal(why, "bad number");
	strcpy(line, "bob:x:1:2");
	assert_int_equal(nwrap_parse_shadow(line, &s, &why), -1);
}

static void test_hosts(void **state)
{
	char line[256];
	struct nwrap_hview h;
	const char *why;
	char a[64];

	(void)state;
	strcpy(line, " 127.0.0.1\tlocalhost  lh \t x # loopback");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), 1);
	assert_int_equal(h.family, AF_INET);
	assert_int_equal(h.nnames, 3);
	assert_string_equal(packed(h.names, h.nnames), "localhost|lh|x");
	strcpy(line, "fd00::5357:5faa test.cwrap.org");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), 1);
	assert_int_equal(h.family, AF_INET6);
	assert_string_equal(inet_ntop(AF_INET6, h.addr, a, sizeof(a)),
			    "fd00::5357:5faa");
	assert_string_equal(packed(h.names, h.nnames), "test.cwrap.org");
	strcpy(line, "# 1.2.3.4 x");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), 0);
	strcpy(line, "   ");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), 0);
	strcpy(line, "1.2.3.4");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), -1);
	assert_string_equal(why, "address without a name");
	strcpy(line, "1.2.3.4   ");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), -1);
	strcpy(line, "1.2.3.256 x");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), -1);
	assert_string_equal(why, "bad address");
	strcpy(line, "fe80::1%eth0 ll");
	assert_int_equal(nwrap_parse_hosts(line, &h, &why), 1);
	assert_string_equal(packed(h.names, h.nnames), "ll");
}

static void test_views(void **state)
{
	char line[128];
	struct passwd p, v;
	struct spwd s, w;
	const char *why;

	(void)state;
	strcpy(line, "bob:x:1000:1001:Bob:/home/bob:/bin/sh");
	assert_int_equal(nwrap_parse_passwd(line, &p, &why), 1);
	nwrap_view_passwd(line, &v);
	assert_int_equal(v.pw_uid, 1000);
	assert_int_equal(v.pw_gid, 1001);
	assert_string_equal(v.pw_gecos, "Bob");
	assert_string_equal(v.pw_shell, "/bin/sh");
	strcpy(line, "bob:!:1:2::4:::9");
	assert_int_equal(nwrap_parse_shadow(line, &s, &why), 1);
	nwrap_view_shadow(line, &w);
	assert_string_equal(w.sp_pwdp, "!");
	assert_int_equal(w.sp_lstchg, 1);
	assert_int_equal(w.sp_max, -1);
	assert_int_equal(w.sp_warn, 4);
	assert_int_equal(w.sp_expire, -1);
	assert_true(w.sp_flag == 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_passwd),
	    cmocka_unit_test(test_group),
	    cmocka_unit_test(test_group_members_exhaustive),
	    cmocka_unit_test(test_shadow),
	    cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
