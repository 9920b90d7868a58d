/*
 * Unit tests of the db, its indexes and the file cache (nwrap_db.c,
 * nwrap_index.c, nwrap_cache.c), linked directly: first line wins, member
 * and host-name multimaps in file order, files of 100,000 lines within the
 * memory budget (3x the file), one address on 100,000 hosts lines indexed
 * once, any input without a crash, reload on
 * change and no re-parse of unchanged bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cwrap_lib.h"
#include "cwrap_test.h"
#include "nwrap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "nss_wrapper",
    .log_prefix = "NWRAP",
    .env_prefix = "NSS_WRAPPER",
};

static struct nwrap_db *build(enum nwrap_kind kind, const char *text,
			      size_t len)
{
	char *copy = malloc(len + 1);
	struct nwrap_db *db;

	memcpy(copy, text, len);
	db = nwrap_db_build(kind, "test", copy, len);
	assert_non_null(db);
	return db;
}

static void test_first_line_wins(void **state)
{
	const char *t = "a:x:1:1:::\nb:x:2:2:::\na:x:3:3:::\nc:x:2:9:::\n";
	struct nwrap_db *db = build(NWRAP_PASSWD, t, strlen(t));

	(void)state;
	assert_int_equal(db->n, 4);
	assert_int_equal(nwrap_db_by_name(db, "a"), 0);
	assert_int_equal(nwrap_db_by_name(db, "c"), 3);
	assert_int_equal(nwrap_db_by_id(db, 2), 1);
	assert_int_equal(nwrap_db_by_id(db, 3), 2);
	assert_int_equal(nwrap_db_by_name(db, "d"), NWRAP_NONE);
	assert_int_equal(nwrap_db_by_id(db, 4), NWRAP_NONE);
	nwrap_db_free(db);
}

static void test_multimaps(void **state)
{
	const char *g = "g1:x:1:bob,alice\ng2:x:2:alice,bob,bob\ng3:x:3:carol\n"
			"g4:x:4:bob\n";
	const char *h = "10.0.0.1 a.example A\n10.0.0.2 b.example a.EXAMPLE\n"
			"10.0.0.3 c.example\n";
	struct nwrap_db *db = build(NWRAP_GROUP, g, strlen(g));
	struct nwrap_index_it it;
	uint32_t got[8], n = 0;

	(void)state;
	for (uint32_t i = nwrap_db_member_first(db, "bob", &it);
	     i != NWRAP_NONE; i = nwrap_db_member_next(db, "bob", &it)) {
		got[n++] = i;
	}
	assert_int_equal(n, 3);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 3);
	assert_int_equal(nwrap_db_member_first(db, "dave", &it), NWRAP_NONE);
	nwrap_db_free(db);

	db = build(NWRAP_HOSTS, h, strlen(h));
	n = 0;
	for (uint32_t i = nwrap_db_host_first(db, "a.example", &it);
	     i != NWRAP_NONE; i = nwrap_db_host_next(db, "a.example", &it)) {
		got[n++] = i;
	}
	assert_int_equal(n, 2);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	{
		unsigned char a[4] = {10, 0, 0, 3};

		assert_int_equal(nwrap_db_host_by_addr(db, AF_INET, a), 2);
		a[3] = 4;
		assert_int_equal(nwrap_db_host_by_addr(db, AF_INET, a),
				 NWRAP_NONE);
	}
	nwrap_db_free(db);
}

/* A member of many groups (root in every other one of 20,000): one index
 * entry and a chain in file order; other names are found past it, and
 * the index has one slot per distinct name, not a probe run of 10,000. */
static void test_member_of_many(void **state)
{
	size_t cap = 20000 * 40, o = 0;
	char *t = malloc(cap);
	struct nwrap_db *db;
	struct nwrap_index_it it;
	uint32_t n = 0, last = 0, slots = 0;

	(void)state;
	assert_non_null(t);
	for (int i = 0; i < 20000; i++) {
		o += (size_t)snprintf(t + o, cap - o, "g%d:x:%d:u%d%s\n", i,
				      i + 1, i, i % 2 ? ",root" : "");
	}
	db = build(NWRAP_GROUP, t, o);
	for (uint32_t i = nwrap_db_member_first(db, "root", &it);
	     i != NWRAP_NONE; i = nwrap_db_member_next(db, "root", &it)) {
		assert_true(n == 0 || i > last);
		assert_int_equal(i % 2, 1);
		last = i;
		n++;
	}
	assert_int_equal(n, 10000);
	assert_int_equal(nwrap_db_member_first(db, "u4321", &it), 4321);
	assert_int_equal(nwrap_db_member_next(db, "u4321", &it), NWRAP_NONE);
	for (uint32_t k = 0; k < db->by_ptr.cap; k++) {
		slots += db->by_ptr.slot[k] != 0;
	}
	assert_int_equal(slots, 20001); /* u0..u19999 and root */
	assert_int_equal(db->nref, 30000);
	nwrap_db_free(db);
	free(t);
}

/* A line of many names after a longer one (found by tests/fuzz, hosts):
 * the duplicate check of the second line used the first line's table
 * size but cleared only its own part of it, so names of the first line
 * were taken for repeats and left out of the second line's chain: a
 * group of 20 members after one of 100 lost its members' memberships. */
static void test_long_line_then_shorter(void **state)
{
	size_t cap = 4096, o = 0;
	char *t = malloc(cap);
	struct nwrap_db *db;
	struct nwrap_index_it it;

	(void)state;
	for (int line = 0; line < 2; line++) {
		int n = line == 0 ? 100 : 20;

		o += (size_t)snprintf(t + o, cap - o, "g%d:x:%d:", line,
				      line + 1);
		for (int m = 0; m < n; m++) {
			o += (size_t)snprintf(t + o, cap - o, "%su%d",
					      m ? "," : "", m);
		}
		t[o++] = '\n';
	}
	db = build(NWRAP_GROUP, t, o);
	for (int m = 0; m < 20; m++) {
		char name[16];

		snprintf(name, sizeof(name), "u%d", m);
		assert_int_equal(nwrap_db_member_first(db, name, &it), 0);
		assert_int_equal(nwrap_db_member_next(db, name, &it), 1);
		assert_int_equal(nwrap_db_member_next(db, name, &it),
				 NWRAP_NONE);
	}
	nwrap_db_free(db);

	o = 0;
	for (int line = 0; line < 2; line++) {
		int n = line == 0 ? 100 : 20;

		o += (size_t)snprintf(t + o, cap - o, "127.0.0.%d main",
				      line + 1);
		for (int m = 0; m < n; m++) {
			o += (size_t)snprintf(t + o, cap - o, " al%d", m);
		}
		t[o++] = '\n';
	}
	db = build(NWRAP_HOSTS, t, o);
	for (int m = 0; m < 20; m++) {
		char name[16];

		snprintf(name, sizeof(name), "AL%d", m);
		assert_int_equal(nwrap_db_host_first(db, name, &it), 0);
		assert_int_equal(nwrap_db_host_next(db, name, &it), 1);
	}
	nwrap_db_free(db);
	free(t);
}

/* The records of the groups listing `name`, in order, into out[]. */
static size_t members_of(struct nwrap_db *db, const char *name, uint32_t *out,
			 size_t max)
{
	struct nwrap_index_it it;
	size_t n = 0;

	for (uint32_t i = nwrap_db_member_first(db, name, &it);
	     i != NWRAP_NONE && n < max;
	     i = nwrap_db_member_next(db, name, &it)) {
		out[n++] = i;
	}
	return n;
}

/* A passwd or group db answers its first lookup of each kind by a scan
 * and builds the index at the second: both give the same answers (first
 * line wins, groups in file order, each once, repeats and empty members
 * skipped), on a file with repeated names, ids and members. */
static void test_scan_equals_index(void **state)
{
	size_t cap = 3000 * 64, o = 0;
	char *g = malloc(cap), *p = malloc(cap);
	struct nwrap_db *gdb, *pdb;
	unsigned seed = 7;
	size_t glen;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		o += (size_t)snprintf(g + o, cap - o, "g%d:x:%d:", i % 2500,
				      i % 2700);
		for (int k = 0; k < i % 5; k++) {
			seed = seed * 1103515245u + 12345u;
			o += (size_t)snprintf(g + o, cap - o, "%su%u",
					      k ? (seed & 64 ? ",," : ",") : "",
					      (seed >> 16) % 300);
		}
		g[o++] = '\n';
	}
	glen = o;
	gdb = build(NWRAP_GROUP, g, glen);
	o = 0;
	for (int i = 0; i < 3000; i++) {
		o += (size_t)snprintf(p + o, cap - o, "u%d:x:%d:1:::\n",
				      i % 2600, i % 2800);
	}
	pdb = build(NWRAP_PASSWD, p, o);
	for (int u = 0; u < 310; u += 7) {
		static uint32_t a[3000], b[3000];
		char name[16];
		size_t na, nb;

		snprintf(name, sizeof(name), "u%d", u);
		/* a fresh db for the scan, this one for the index */
		struct nwrap_db *fresh = build(NWRAP_GROUP, g, glen);

		na = members_of(fresh, name, a, 3000);
		assert_int_equal(fresh->built, 0);
		nwrap_db_free(fresh);
		members_of(gdb, name, b, 3000);
		nb = members_of(gdb, name, b, 3000);
		assert_true(gdb->built & NWRAP_IX_MEMBER);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na * sizeof(a[0]));
		for (size_t k = 1; k < na; k++) {
			assert_true(a[k] > a[k - 1]);
		}
	}
	for (int i = 0; i < 2900; i += 13) {
		char name[16];
		uint32_t s1, s2, s3, s4;
		struct nwrap_db *fresh = build(NWRAP_PASSWD, p, o);

		snprintf(name, sizeof(name), "u%d", i);
		s1 = nwrap_db_by_name(fresh, name);
		s2 = nwrap_db_by_id(fresh, (uint32_t)i);
		assert_int_equal(fresh->built, 0);
		nwrap_db_free(fresh);
		nwrap_db_by_name(pdb, name);
		nwrap_db_by_id(pdb, (uint32_t)i);
		s3 = nwrap_db_by_name(pdb, name);
		s4 = nwrap_db_by_id(pdb, (uint32_t)i);
		assert_int_equal(pdb->built, NWRAP_IX_NAME | NWRAP_IX_ID);
		assert_int_equal(s1, s3);
		assert_int_equal(s2, s4);
		assert_int_equal(s1, i < 2600 ? (uint32_t)i : NWRAP_NONE);
		assert_int_equal(s2, i < 2800 ? (uint32_t)i : NWRAP_NONE);
	}
	nwrap_db_free(gdb);
	nwrap_db_free(pdb);
	free(g);
	free(p);
}

static char *generate(enum nwrap_kind kind, int n, size_t *len)
{
	size_t cap = (size_t)n * 96 + 1, o = 0;
	char *t = malloc(cap);

	for (int i = 0; i < n; i++) {
		switch (kind) {
		case NWRAP_PASSWD:
			o += (size_t)snprintf(
			    t + o, cap - o,
			    "user%d:x:%d:%d:User %d:/home/user%d:/bin/sh\n", i,
			    10000 + i, 10000 + i, i, i);
			break;
		case NWRAP_GROUP:
			o += (size_t)snprintf(t + o, cap - o,
					      "group%d:x:%d:user%d,user%d\n", i,
					      10000 + i, i, (i + 1) % n);
			break;
		case NWRAP_SHADOW:
			o += (size_t)snprintf(
			    t + o, cap - o, "user%d:!:19000:0:99999:7:::\n", i);
			break;
		case NWRAP_HOSTS:
			o += (size_t)snprintf(
			    t + o, cap - o, "10.%d.%d.%d host%d.example h%d\n",
			    i >> 16, (i >> 8) & 255, i & 255, i, i);
			break;
		case NWRAP_SERVICES:
			o += (size_t)snprintf(t + o, cap - o,
					      "svc%d %d/tcp alias%d\n", i,
					      i % 65536, i);
			break;
		}
	}
	*len = o;
	return t;
}

static void test_100k_within_budget(void **state)
{
	(void)state;
	for (int k = NWRAP_PASSWD; k <= NWRAP_HOSTS; k++) {
		size_t len;
		char *t = generate(k, 100000, &len);
		struct nwrap_db *db = nwrap_db_build(k, "gen", t, len);
		struct nwrap_index_it it;
		char name[64];

		assert_non_null(db);
		assert_int_equal(db->n, 100000);
		/* the first lookup of each kind scans, the next builds */
		for (int i = 0; i < 100000; i += 997) {
			switch (k) {
			case NWRAP_PASSWD:
				snprintf(name, sizeof(name), "user%d", i);
				assert_int_equal(nwrap_db_by_name(db, name), i);
				assert_int_equal(nwrap_db_by_id(db, 10000 + i),
						 i);
				break;
			case NWRAP_GROUP:
				snprintf(name, sizeof(name), "user%d", i);
				assert_int_equal(
				    nwrap_db_member_first(db, name, &it),
				    i > 0 ? i - 1 : 0);
				break;
			case NWRAP_SHADOW:
				snprintf(name, sizeof(name), "user%d", i);
				assert_int_equal(nwrap_db_by_name(db, name), i);
				break;
			case NWRAP_HOSTS:
				snprintf(name, sizeof(name), "H%d", i);
				assert_int_equal(
				    nwrap_db_host_first(db, name, &it), i);
				break;
			}
		}
		print_message("kind %d: %zu bytes of file, %zu held (%.2fx)\n",
			      k, len, db->bytes,
			      (double)db->bytes / (double)len);
		assert_true(db->bytes <= 3 * len);
		nwrap_db_free(db);
	}
}

/* A name repeated in one list is referenced once: each group (host line)
 * comes back once, in file order, and the repeats are counted. */
static void test_repeated_names(void **state)
{
	static const char groups[] = "g1:x:1:a,b,a,a\ng2:x:2:b\ng3:x:3:a\n";
	static const char hosts[] = "10.0.0.1 h H h\n10.0.0.2 h\n";
	struct nwrap_index_it it;
	struct nwrap_db *db = build(NWRAP_GROUP, groups, sizeof(groups) - 1);
	size_t len = 0, cap = 65536 * 4 + 64;
	char *big = malloc(cap);
	uint32_t i;

	(void)state;
	/* the first lookup scans, the second builds the index */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(nwrap_db_member_first(db, "a", &it), 0);
		assert_int_equal(nwrap_db_member_next(db, "a", &it), 2);
		assert_int_equal(nwrap_db_member_next(db, "a", &it),
				 NWRAP_NONE);
		assert_int_equal(nwrap_db_member_first(db, "b", &it), 0);
		assert_int_equal(nwrap_db_member_next(db, "b", &it), 1);
		assert_int_equal(nwrap_db_member_next(db, "b", &it),
				 NWRAP_NONE);
	}
	assert_int_equal(db->ndup, 2);
	nwrap_db_free(db);

	db = build(NWRAP_HOSTS, hosts, sizeof(hosts) - 1);
	assert_int_equal(db->ndup, 2); /* "H" is "h" for hosts */
	assert_int_equal(nwrap_db_host_first(db, "H", &it), 0);
	assert_int_equal(nwrap_db_host_next(db, "H", &it), 1);
	assert_int_equal(nwrap_db_host_next(db, "H", &it), NWRAP_NONE);
	nwrap_db_free(db);

	/* 65,536 copies of one member, then another member */
	len += (size_t)snprintf(big + len, cap - len, "many:x:7:m");
	for (int k = 1; k < 65536; k++) {
		len += (size_t)snprintf(big + len, cap - len, ",m");
	}
	len += (size_t)snprintf(big + len, cap - len, ",z\n");
	db = nwrap_db_build(NWRAP_GROUP, "big", big, len);
	assert_non_null(db);
	for (int round = 0; round < 2; round++) {
		i = nwrap_db_member_first(db, "m", &it);
		assert_int_equal(i, 0);
		assert_int_equal(nwrap_db_member_next(db, "m", &it),
				 NWRAP_NONE);
		assert_int_equal(nwrap_db_member_first(db, "z", &it), 0);
		assert_int_equal(nwrap_db_member_next(db, "z", &it),
				 NWRAP_NONE);
	}
	assert_int_equal(db->ndup, 65535);
	assert_int_equal(db->nref, 2);
	nwrap_db_free(db);
}

/* 100,000 lines of one address: the first is the one looked up, and the
 * only one indexed (a probe run per duplicate would make the load
 * quadratic); the name on all of them is one chain. */
static void test_one_address_many_lines(void **state)
{
	size_t cap = 100001 * 32, len = 0, used = 0;
	char *t = malloc(cap);
	unsigned char a[4] = {127, 0, 0, 1};
	struct nwrap_index_it it;
	struct nwrap_db *db;
	uint32_t i, n = 0;

	(void)state;
	for (int k = 0; k < 100000; k++) {
		len += (size_t)snprintf(t + len, cap - len,
					"127.0.0.1 h%d.example same\n", k);
	}
	len += (size_t)snprintf(t + len, cap - len, "127.0.0.2 other\n");
	db = nwrap_db_build(NWRAP_HOSTS, "dups", t, len);
	assert_non_null(db);
	assert_int_equal(nwrap_db_host_by_addr(db, AF_INET, a), 0);
	a[3] = 2;
	assert_int_equal(nwrap_db_host_by_addr(db, AF_INET, a), 100000);
	for (uint32_t s = 0; s < db->by_id.cap; s++) {
		used += db->by_id.slot[s] != 0;
	}
	assert_int_equal(used, 2);
	for (i = nwrap_db_host_first(db, "SAME", &it); i != NWRAP_NONE;
	     i = nwrap_db_host_next(db, "SAME", &it)) {
		assert_int_equal(i, n);
		n++;
	}
	assert_int_equal(n, 100000);
	nwrap_db_free(db);
}

static void test_services(void **state)
{
	static const char text[] = "# services\n"
				   "ssh\t\t22/tcp\t\t\t# SSH\n"
				   "domain 53/tcp\n"
				   "domain 53/udp\n"
				   "discard 9/udp sink null\n"
				   "bad 70000/tcp\n"
				   "noproto 12\n"
				   "http 80/tcp www # WorldWideWeb\n";
	struct nwrap_db *db = build(NWRAP_SERVICES, text, sizeof(text) - 1);
	uint32_t i;

	(void)state;
	assert_int_equal(db->n, 5);
	i = nwrap_db_service(db, "ssh", "tcp");
	assert_int_not_equal(i, NWRAP_NONE);
	assert_int_equal(db->rec.sv[i].port, 22);
	assert_int_equal(nwrap_db_service(db, "ssh", "udp"), NWRAP_NONE);
	i = nwrap_db_service(db, "null", "udp");
	assert_int_not_equal(i, NWRAP_NONE);
	assert_int_equal(db->rec.sv[i].port, 9);
	assert_string_equal(db->text + db->rec.sv[i].names, "discard");
	assert_string_equal(db->text + db->rec.sv[i].proto, "udp");
	i = nwrap_db_service(db, "www", "tcp");
	assert_int_not_equal(i, NWRAP_NONE);
	assert_int_equal(db->rec.sv[i].port, 80);
	i = nwrap_db_service_by_port(db, 53, "udp");
	assert_int_not_equal(i, NWRAP_NONE);
	assert_string_equal(db->text + db->rec.sv[i].names, "domain");
	assert_string_equal(db->text + db->rec.sv[i].proto, "udp");
	assert_int_equal(nwrap_db_service_by_port(db, 22, "udp"), NWRAP_NONE);
	assert_int_equal(nwrap_db_service(db, "bad", "tcp"), NWRAP_NONE);
	nwrap_db_free(db);
}

static void test_any_input(void **state)
{
	size_t big = 1024 * 1024 + 10; /* NWRAP_LINE_MAX + 10 */
	char *junk = malloc(big + 64);
	unsigned int seed = 42;

	(void)state;
	for (size_t i = 0; i < big; i++) {
		junk[i] = (char)(rand_r(&seed) & 0xff);
	}
	for (int k = NWRAP_PASSWD; k <= NWRAP_SERVICES; k++) {
		nwrap_db_free(build(k, junk, big));
		nwrap_db_free(build(k, "", 0));
		nwrap_db_free(build(k, "\n\n\r\n", 4));
		nwrap_db_free(build(k, ":::::::::\n,,,,\n#\n", 17));
	}
	/* a line over 1 MiB, then a good line without a newline */
	memset(junk, 'a', big);
	strcpy(junk + big - 5, "\nb:x:1:1:::");
	{
		struct nwrap_db *db = build(NWRAP_PASSWD, junk, strlen(junk));

		assert_int_equal(db->n, 1);
		assert_int_equal(nwrap_db_by_name(db, "b"), 0);
		nwrap_db_free(db);
	}
	/* a NUL inside a line skips that line only */
	{
		static const char t[] =
		    "a:x:1:1:::\nb:x\0:2:2:::\nc:x:3:3:::\r\n";
		struct nwrap_db *db = build(NWRAP_PASSWD, t, sizeof(t) - 1);

		assert_int_equal(db->n, 2);
		assert_int_equal(nwrap_db_by_name(db, "c"), 1);
		{
			struct passwd v;

			nwrap_db_pw(db, 1, &v);
			assert_string_equal(v.pw_shell, "");
			assert_int_equal(v.pw_uid, 3);
		}
		nwrap_db_free(db);
	}
	free(junk);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

static void test_cache_reload(void **state)
{
	char *dir = cwrap_test_mkdtemp("nwrap-cache");
	char *path = cwrap_test_path(dir, "passwd");
	char *tmp = cwrap_test_path(dir, "passwd.new");
	struct nwrap_cache c = NWRAP_CACHE_INIT(NWRAP_PASSWD, "TEST_VAR");
	const struct nwrap_db *db;

	(void)state;
	c.path = path;
	assert_null(nwrap_cache_acquire(&c)); /* missing: reported, NULL */
	nwrap_cache_release(&c);
	assert_true(c.reported);

	cwrap_test_write_file(path, "a:x:1:1:::\n");
	db = nwrap_cache_acquire(&c);
	assert_non_null(db);
	assert_int_equal(db->n, 1);
	nwrap_cache_release(&c);
	assert_int_equal(c.loads, 1);

	/* unchanged: never parsed again (read again only while racy) */
	for (int i = 0; i < 5; i++) {
		nwrap_cache_acquire(&c);
		nwrap_cache_release(&c);
	}
	sleep_ms(50);
	nwrap_cache_acquire(&c);
	nwrap_cache_release(&c);
	assert_int_equal(c.loads, 1);

	/* same bytes rewritten: a new stamp, still no parse */
	cwrap_test_write_file(path, "a:x:1:1:::\n");
	nwrap_cache_acquire(&c);
	nwrap_cache_release(&c);
	assert_int_equal(c.loads, 1);

	/* edited in place, same size, at once */
	cwrap_test_write_file(path, "b:x:1:1:::\n");
	db = nwrap_cache_acquire(&c);
	assert_int_equal(nwrap_db_by_name(db, "b"), 0);
	nwrap_cache_release(&c);
	assert_int_equal(c.loads, 2);

	/* replaced by rename */
	cwrap_test_write_file(tmp, "c:x:1:1:::\nd:x:2:2:::\n");
	assert_int_equal(rename(tmp, path), 0);
	db = nwrap_cache_acquire(&c);
	assert_int_equal(db->n, 2);
	nwrap_cache_release(&c);
	assert_int_equal(c.loads, 3);

	nwrap_cache_reset(&c);
	cwrap_test_rmtree(dir);
	free(path);
	free(tmp);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_line_wins),
	    cmocka_unit_test(test_multimaps),
	    cmocka_unit_test(test_member_of_many),
	    cmocka_unit_test(test_long_line_then_shorter),
	    cmocka_unit_test(test_100k_within_budget),
	    cmocka_unit_test(test_repeated_names),
	    cmocka_unit_test(test_one_address_many_lines),
	    cmocka_unit_test(test_scan_equals_index),
	    cmocka_unit_test(test_services),
	    cmocka_unit_test(test_any_input),
	    cmocka_unit_test(test_cache_reload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
