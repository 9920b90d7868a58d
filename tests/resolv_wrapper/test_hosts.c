/*
 * RESOLV_WRAPPER_HOSTS: every record type answered from the file as a
 * well-formed DNS message (read back with ns_initparse, ns_parserr and
 * dn_expand), CNAME chains, the additional section, NXDOMAIN and NODATA
 * as a resolver reports them, every interposed call and both spellings,
 * search lists, res_ninit's state, files re-read when they change, bad
 * lines, fork. Runs with libresolv_wrapper.so preloaded; no server.
 */
#include "rwrap_test.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir, *hosts, *conf;
static unsigned char ans[4096];

static const char records[] =
    "# test records\n"
    "A       dc.cwrap.org 127.0.0.10\n"
    "A       dc.cwrap.org 127.0.0.12\n"
    "AAAA    dc.cwrap.org fd00::5357:5f0a\n"
    "CNAME   kerberos.cwrap.org dc.cwrap.org\n"
    "CNAME   kdc.cwrap.org kerberos.cwrap.org\n"
    "CNAME   dangling.cwrap.org nowhere.cwrap.org\n"
    "CNAME   loop1.cwrap.org loop2.cwrap.org\n"
    "CNAME   loop2.cwrap.org loop1.cwrap.org\n"
    "SRV     _kerberos._tcp.cwrap.org kerberos.cwrap.org 88\n"
    "SRV     _ldap._tcp.cwrap.org dc.cwrap.org 389 5 6\n"
    "URI     _vpn.cwrap.org https://vpn.cwrap.org/VPN\n"
    "URI     _ftp.cwrap.org ftp://ftp.cwrap.org/ 3 4\n"
    "TXT     cwrap.org v=spf1 mx\n"
    "SOA     cwrap.org ns1.cwrap.org admin.cwrap.org 2014050701 3600 600 86400 "
    "300\n"
    "NS      cwrap.org ns1.cwrap.org\n"
    "A       ns1.cwrap.org 127.0.0.11\n"
    "PTR     10.0.0.127.in-addr.arpa dc.cwrap.org\n"
    "MX      cwrap.org mail.cwrap.org\n"
    "MX      mx2.cwrap.org mail.cwrap.org 20\n"
    "A       mail.cwrap.org 127.0.0.13\n";

static int setup(void **state)
{
	(void)state;
	dir = cwrap_test_mkdtemp("rwrap-hosts");
	hosts = cwrap_test_path(dir, "hosts");
	conf = cwrap_test_path(dir, "resolv.conf");
	cwrap_test_write_file(hosts, records);
	unsetenv("RESOLV_WRAPPER_CONF");
	unsetenv("LOCALDOMAIN");
	unsetenv("RES_OPTIONS");
	setenv("RESOLV_WRAPPER_HOSTS", hosts, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("RESOLV_WRAPPER_HOSTS");
	unsetenv("RESOLV_WRAPPER_CONF");
	cwrap_test_rmtree(dir);
	free(hosts);
	free(conf);
	free(dir);
	return 0;
}

/* res_query's answer section as text; "" and h_errno in *herr on -1. */
static char *query(const char *name, int type, int *herr)
{
	int n;

	h_errno = 0;
	n = res_query(name, ns_c_in, type, ans, sizeof(ans));
	*herr = h_errno;
	if (n < 0) {
		return strdup("");
	}
	return rwrap_test_answers(ans, n);
}

/* How many lines of `text` start with `prefix`. */
static int lines_of(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p != NULL && *p != '\0';
	     p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL) {
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	}
	return n;
}

static void expect(const char *name, int type, const char *want)
{
	int herr;
	char *got = query(name, type, &herr);

	assert_string_equal(got, want);
	free(got);
}

static void expect_fail(const char *name, int type, int herr_want, int rcode)
{
	int herr, n;
	ns_msg m;

	h_errno = 0;
	memset(ans, 0, sizeof(ans));
	n = res_query(name, ns_c_in, type, ans, sizeof(ans));
	herr = h_errno;
	assert_int_equal(n, -1);
	assert_int_equal(herr, herr_want);
	/* the answer is in the buffer anyway, as glibc leaves it, and parses */
	assert_int_equal(
	    ns_initparse(ans, rwrap_test_msglen(ans, sizeof(ans)), &m), 0);
	assert_int_equal(ns_msg_getflag(m, ns_f_rcode), rcode);
	assert_int_equal(ns_msg_count(m, ns_s_qd), 1);
}

static void test_a_aaaa(void **state)
{
	char *full;
	int n;

	(void)state;
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;A 127.0.0.12;");
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::5357:5f0a;");
	/* case and a trailing dot do not matter */
	expect("DC.Cwrap.ORG.", ns_t_a, "A 127.0.0.10;A 127.0.0.12;");
	n = res_query("dc.cwrap.org", ns_c_in, ns_t_a, ans, sizeof(ans));
	assert_true(n > 0);
	full = rwrap_test_format(ans, n);
	assert_string_equal(full, "rcode=0\n"
				  "qd dc.cwrap.org A\n"
				  "an dc.cwrap.org A 127.0.0.10\n"
				  "an dc.cwrap.org A 127.0.0.12\n");
	free(full);
}

static void test_cname(void **state)
{
	int n;
	char *full;

	(void)state;
	expect("kerberos.cwrap.org", ns_t_a,
	       "CNAME dc.cwrap.org;A 127.0.0.10;A 127.0.0.12;");
	expect("kdc.cwrap.org", ns_t_aaaa,
	       "CNAME kerberos.cwrap.org;CNAME dc.cwrap.org;AAAA "
	       "fd00::5357:5f0a;");
	expect("kdc.cwrap.org", ns_t_cname, "CNAME kerberos.cwrap.org;");
	n = res_query("kdc.cwrap.org", ns_c_in, ns_t_aaaa, ans, sizeof(ans));
	full = rwrap_test_format(ans, n);
	assert_string_equal(full, "rcode=0\n"
				  "qd kdc.cwrap.org AAAA\n"
				  "an kdc.cwrap.org CNAME kerberos.cwrap.org\n"
				  "an kerberos.cwrap.org CNAME dc.cwrap.org\n"
				  "an dc.cwrap.org AAAA fd00::5357:5f0a\n");
	free(full);
	/* a CNAME to a name the file does not know: NXDOMAIN (RFC 6604) */
	expect_fail("dangling.cwrap.org", ns_t_a, HOST_NOT_FOUND,
		    ns_r_nxdomain);
}

/* res_query(name, CNAME): the whole message as text, checked to be as long
 * as its sections say. */
static char *cname_query(const char *name)
{
	int n = res_query(name, ns_c_in, ns_t_cname, ans, sizeof(ans));

	assert_true(n > 0);
	assert_int_equal(rwrap_test_msglen(ans, n), n);
	return rwrap_test_format(ans, n);
}

/* A CNAME query: the name's CNAME, and in the additional section the rest
 * of the chain (the next CNAMEs, the final A and AAAA records), as
 * upstream's answer carries it (and its suite checks); well-formed. */
static void test_cname_query_additional(void **state)
{
	char *full;
	int n;

	(void)state;
	full = cname_query("kdc.cwrap.org");
	assert_string_equal(full, "rcode=0\n"
				  "qd kdc.cwrap.org CNAME\n"
				  "an kdc.cwrap.org CNAME kerberos.cwrap.org\n"
				  "ar kerberos.cwrap.org CNAME dc.cwrap.org\n"
				  "ar dc.cwrap.org A 127.0.0.10\n"
				  "ar dc.cwrap.org A 127.0.0.12\n"
				  "ar dc.cwrap.org AAAA fd00::5357:5f0a\n");
	free(full);
	full = cname_query("kerberos.cwrap.org");
	assert_string_equal(full, "rcode=0\n"
				  "qd kerberos.cwrap.org CNAME\n"
				  "an kerberos.cwrap.org CNAME dc.cwrap.org\n"
				  "ar dc.cwrap.org A 127.0.0.10\n"
				  "ar dc.cwrap.org A 127.0.0.12\n"
				  "ar dc.cwrap.org AAAA fd00::5357:5f0a\n");
	free(full);
	/* a chain to nowhere: nothing to add */
	full = cname_query("dangling.cwrap.org");
	assert_string_equal(full,
			    "rcode=0\n"
			    "qd dangling.cwrap.org CNAME\n"
			    "an dangling.cwrap.org CNAME nowhere.cwrap.org\n");
	free(full);
	/* a loop ends after 16 links, still a message that parses */
	full = cname_query("loop1.cwrap.org");
	assert_int_equal(lines_of(full, "ar "), 16);
	free(full);
	/* a name without a CNAME: NODATA, no additional records */
	n = res_query("dc.cwrap.org", ns_c_in, ns_t_cname, ans, sizeof(ans));
	assert_int_equal(n, -1);
	assert_int_equal(h_errno, NO_DATA);
}

static void test_srv(void **state)
{
	int n;
	char *full;

	(void)state;
	/* upstream's defaults: priority 1, weight 100 */
	n = res_query("_kerberos._tcp.cwrap.org", ns_c_in, ns_t_srv, ans,
		      sizeof(ans));
	assert_true(n > 0);
	full = rwrap_test_format(ans, n);
	assert_string_equal(
	    full,
	    "rcode=0\n"
	    "qd _kerberos._tcp.cwrap.org SRV\n"
	    "an _kerberos._tcp.cwrap.org SRV 1 100 88 kerberos.cwrap.org\n"
	    "ar kerberos.cwrap.org CNAME dc.cwrap.org\n"
	    "ar dc.cwrap.org A 127.0.0.10\n"
	    "ar dc.cwrap.org A 127.0.0.12\n"
	    "ar dc.cwrap.org AAAA fd00::5357:5f0a\n");
	free(full);
	expect("_ldap._tcp.cwrap.org", ns_t_srv, "SRV 5 6 389 dc.cwrap.org;");
}

static void test_mx(void **state)
{
	int n;
	char *full;

	(void)state;
	n = res_query("cwrap.org", ns_c_in, ns_t_mx, ans, sizeof(ans));
	assert_true(n > 0);
	full = rwrap_test_format(ans, n);
	assert_string_equal(full, "rcode=0\n"
				  "qd cwrap.org MX\n"
				  "an cwrap.org MX 10 mail.cwrap.org\n"
				  "ar mail.cwrap.org A 127.0.0.13\n");
	free(full);
	expect("mx2.cwrap.org", ns_t_mx, "MX 20 mail.cwrap.org;");
}

static void test_txt_uri_soa_ns_ptr(void **state)
{
	char big[400], line[2048];
	int n;
	char *full;

	(void)state;
	/* the whole text, first character included */
	expect("cwrap.org", ns_t_txt, "TXT v=spf1 mx;");
	expect("_vpn.cwrap.org", 256, "URI 1 100 https://vpn.cwrap.org/VPN;");
	expect("_ftp.cwrap.org", 256, "URI 3 4 ftp://ftp.cwrap.org/;");
	expect(
	    "cwrap.org", ns_t_soa,
	    "SOA ns1.cwrap.org admin.cwrap.org 2014050701 3600 600 86400 300;");
	n = res_query("cwrap.org", ns_c_in, ns_t_ns, ans, sizeof(ans));
	full = rwrap_test_format(ans, n);
	assert_string_equal(full, "rcode=0\n"
				  "qd cwrap.org NS\n"
				  "an cwrap.org NS ns1.cwrap.org\n"
				  "ar ns1.cwrap.org A 127.0.0.11\n");
	free(full);
	expect("10.0.0.127.in-addr.arpa", ns_t_ptr, "PTR dc.cwrap.org;");

	/* a text longer than 255 bytes: several character-strings */
	memset(big, 'x', 300);
	big[0] = 'a';
	big[300] = '\0';
	snprintf(line, sizeof(line), "%sTXT long.cwrap.org %s\n", records, big);
	cwrap_test_write_file(hosts, line);
	n = res_query("long.cwrap.org", ns_c_in, ns_t_txt, ans, sizeof(ans));
	assert_true(n > 0);
	full = rwrap_test_answers(ans, n);
	assert_int_equal(strlen(full), strlen("TXT ") + 300 + 1 + 1);
	assert_memory_equal(full, "TXT axx", 7);
	assert_int_equal(full[4 + 255], '|');
	free(full);
	cwrap_test_write_file(hosts, records);
}

static void test_nxdomain_nodata(void **state)
{
	(void)state;
	expect_fail("nope.cwrap.org", ns_t_a, HOST_NOT_FOUND, ns_r_nxdomain);
	expect_fail("dc.cwrap.org", ns_t_txt, NO_DATA, ns_r_noerror);
	expect_fail("cwrap.org", ns_t_a, NO_DATA, ns_r_noerror);
}

/* Each interposed call, and the __res_ spelling of each. */
static void test_entry_points(void **state)
{
	struct __res_state rs;
	unsigned char q[512];
	int n, qlen;
	char *got;
	Dl_info info;
	int (*uquery)(const char *, int, int, unsigned char *, int);
	int (*unquery)(res_state, const char *, int, int, unsigned char *, int);
	int (*uninit)(res_state);
	static const char *names[] = {
	    "res_init", "res_query", "res_search", "res_querydomain", "res_send",
#ifdef HAVE___RES_NINIT /* (a resolver with a state: glibc) */
	    "res_ninit", "res_close", "res_nclose", "res_nquery", "res_nsearch",
	    "res_nquerydomain", "res_nsend",
#endif
	};
#ifdef HAVE___RES_INIT /* (glibc's __res_ spellings) */
	const int spellings = 2;
#else
	const int spellings = 1;
#endif

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char under[64];
		void *p = dlsym(RTLD_DEFAULT, names[i]);

		snprintf(under, sizeof(under), "__%s", names[i]);
		for (int k = 0; k < spellings; k++) {
			assert_non_null(p);
			assert_int_not_equal(dladdr(p, &info), 0);
			if (strstr(info.dli_fname, "libresolv_wrapper") ==
			    NULL) {
				fail_msg("%s comes from %s",
					 k ? under : names[i], info.dli_fname);
			}
			p = dlsym(RTLD_DEFAULT, under);
		}
	}

	memset(&rs, 0, sizeof(rs));
	assert_int_equal(res_ninit(&rs), 0);
	n = res_nquery(&rs, "dc.cwrap.org", ns_c_in, ns_t_aaaa, ans,
		       sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "AAAA fd00::5357:5f0a;");
	free(got);
	h_errno = 0;
	assert_int_equal(res_nquery(&rs, "nope.cwrap.org", ns_c_in, ns_t_a, ans,
				    sizeof(ans)),
			 -1);
	assert_int_equal(rs.res_h_errno, HOST_NOT_FOUND);
	assert_int_equal(h_errno, HOST_NOT_FOUND);

	n = res_querydomain("dc", "cwrap.org", ns_c_in, ns_t_a, ans,
			    sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "A 127.0.0.10;A 127.0.0.12;");
	free(got);
	n = res_nquerydomain(&rs, "_ldap._tcp", "cwrap.org", ns_c_in, ns_t_srv,
			     ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "SRV 5 6 389 dc.cwrap.org;");
	free(got);
	n = res_nquerydomain(&rs, "dc.cwrap.org.", NULL, ns_c_in, ns_t_a, ans,
			     sizeof(ans));
	assert_true(n > 0);

	/* res_send: a message made by libc's res_mkquery, its id echoed */
	qlen = res_mkquery(ns_o_query, "kerberos.cwrap.org", ns_c_in, ns_t_a,
			   NULL, 0, NULL, q, sizeof(q));
	assert_true(qlen > 0);
	n = res_send(q, qlen, ans, sizeof(ans));
	assert_true(n > 12);
	assert_memory_equal(ans, q, 2);
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got,
			    "CNAME dc.cwrap.org;A 127.0.0.10;A 127.0.0.12;");
	free(got);
	n = res_nsend(&rs, q, qlen, ans, sizeof(ans));
	assert_true(n > 12);
	/* res_send gives NXDOMAIN answers as they come */
	qlen = res_mkquery(ns_o_query, "nope.cwrap.org", ns_c_in, ns_t_a, NULL,
			   0, NULL, q, sizeof(q));
	n = res_nsend(&rs, q, qlen, ans, sizeof(ans));
	assert_true(n > 12);
	assert_int_equal(ans[3] & 0x0f, ns_r_nxdomain);
	res_nclose(&rs);
	res_close();
	assert_int_equal(res_init(), 0);

#ifdef HAVE___RES_INIT
	/* the old spellings answer the same */
	uquery = (int (*)(const char *, int, int, unsigned char *, int))dlsym(
	    RTLD_DEFAULT, "__res_query");
	unquery = (int (*)(res_state, const char *, int, int, unsigned char *,
			   int))dlsym(RTLD_DEFAULT, "__res_nquery");
	uninit = (int (*)(res_state))dlsym(RTLD_DEFAULT, "__res_ninit");
	n = uquery("_vpn.cwrap.org", ns_c_in, 256, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "URI 1 100 https://vpn.cwrap.org/VPN;");
	free(got);
	memset(&rs, 0, sizeof(rs));
	assert_int_equal(uninit(&rs), 0);
	n = unquery(&rs, "cwrap.org", ns_c_in, ns_t_txt, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "TXT v=spf1 mx;");
	free(got);
	res_nclose(&rs);
#else
	(void)uquery, (void)unquery, (void)uninit;
#endif
}

static void test_search(void **state)
{
	struct __res_state rs;
	char *got;
	int n;

	(void)state;
	cwrap_test_write_file(conf, "search sub.cwrap.org cwrap.org\n"
				    "options ndots:2\n");
	setenv("RESOLV_WRAPPER_CONF", conf, 1);
	n = res_search("dc", ns_c_in, ns_t_a, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "A 127.0.0.10;A 127.0.0.12;");
	free(got);
	/* one dot < ndots 2: the search list first */
	n = res_search("_ldap._tcp", ns_c_in, ns_t_srv, ans, sizeof(ans));
	assert_true(n > 0);
	memset(&rs, 0, sizeof(rs));
	assert_int_equal(res_ninit(&rs), 0);
	n = res_nsearch(&rs, "kerberos", ns_c_in, ns_t_a, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got,
			    "CNAME dc.cwrap.org;A 127.0.0.10;A 127.0.0.12;");
	free(got);
	/* a known name without the type: NO_DATA wins over HOST_NOT_FOUND */
	assert_int_equal(
	    res_nsearch(&rs, "dc", ns_c_in, ns_t_txt, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, NO_DATA);
	assert_int_equal(
	    res_nsearch(&rs, "nope", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, HOST_NOT_FOUND);
	/* a trailing dot: the name alone */
	assert_int_equal(
	    res_nsearch(&rs, "dc.", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, HOST_NOT_FOUND);
	/* RES_DEFNAMES off: a single label is not searched */
	rs.options &= ~(unsigned long)(RES_DEFNAMES | RES_DNSRCH);
	assert_int_equal(
	    res_nsearch(&rs, "dc", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	res_nclose(&rs);
	/* LOCALDOMAIN replaces the file's list, as for glibc */
	setenv("LOCALDOMAIN", "nothing.example", 1);
	assert_int_equal(res_search("dc", ns_c_in, ns_t_a, ans, sizeof(ans)),
			 -1);
	setenv("LOCALDOMAIN", "cwrap.org", 1);
	assert_true(res_search("ns1", ns_c_in, ns_t_a, ans, sizeof(ans)) > 0);
	unsetenv("LOCALDOMAIN");
	/* RES_OPTIONS ndots:1 asks "_ldap._tcp" as is first: not found, then
	 * the list */
	setenv("RES_OPTIONS", "ndots:1", 1);
	assert_true(
	    res_search("_ldap._tcp", ns_c_in, ns_t_srv, ans, sizeof(ans)) > 0);
	unsetenv("RES_OPTIONS");
	unsetenv("RESOLV_WRAPPER_CONF");
}

static void test_ninit_state(void **state)
{
	struct __res_state rs;
	char a[INET6_ADDRSTRLEN];

	(void)state;
	cwrap_test_write_file(conf,
			      "nameserver 127.0.0.53\n"
			      "nameserver fd00::5357:5f35\n"
			      "domain cwrap.org\n"
			      "options timeout:3 attempts:4 ndots:3 rotate\n");
	setenv("RESOLV_WRAPPER_CONF", conf, 1);
	memset(&rs, 0, sizeof(rs));
	assert_int_equal(res_ninit(&rs), 0);
	assert_int_equal(rs.nscount, 2);
	assert_int_equal(rs.nsaddr_list[0].sin_family, AF_INET);
	assert_int_equal(ntohs(rs.nsaddr_list[0].sin_port), 53);
	inet_ntop(AF_INET, &rs.nsaddr_list[0].sin_addr, a, sizeof(a));
	assert_string_equal(a, "127.0.0.53");
	assert_non_null(rs._u._ext.nsaddrs[1]);
	inet_ntop(AF_INET6, &rs._u._ext.nsaddrs[1]->sin6_addr, a, sizeof(a));
	assert_string_equal(a, "fd00::5357:5f35");
	assert_string_equal(rs.dnsrch[0], "cwrap.org");
	assert_null(rs.dnsrch[1]);
	assert_int_equal(rs.ndots, 3);
	assert_int_equal(rs.retrans, 3);
	assert_int_equal(rs.retry, 4);
	assert_true(rs.options & RES_ROTATE);
	res_nclose(&rs);
	unsetenv("RESOLV_WRAPPER_CONF");
}

/* A state with no nameserver of ours: what glibc shows for a resolv.conf
 * without nameserver lines (none of the system's). */
static void expect_no_server(const struct __res_state *rs)
{
	assert_int_equal(rs->nscount, 1);
	assert_int_equal(rs->nsaddr_list[0].sin_family, AF_INET);
	assert_int_equal(ntohl(rs->nsaddr_list[0].sin_addr.s_addr),
			 INADDR_LOOPBACK);
	assert_int_equal(ntohs(rs->nsaddr_list[0].sin_port), 53);
}

/* RESOLV_WRAPPER_CONF naming a file that cannot be read: res_init() and
 * res_ninit() return -1 with its errno, as upstream's (its suite checks
 * it), one line names the file, the state gets no nameserver (none of the
 * system's), and the record file still answers. A readable file again: 0;
 * an empty one: 0, no nameserver either. (valgrind: nothing of glibc's
 * state is lost across these inits.) */
static void test_conf_unreadable(void **state)
{
	char *log = cwrap_test_path(dir, "conf.log");
	char *missing = cwrap_test_path(dir, "no-resolv.conf");
	struct __res_state rs;
	int saved = dup(2), fd;

	(void)state;
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	close(fd);

	setenv("RESOLV_WRAPPER_CONF", missing, 1);
	errno = 0;
	assert_int_equal(res_init(), -1);
	assert_int_equal(errno, ENOENT);
	expect_no_server(&_res);
	memset(&rs, 0, sizeof(rs));
	errno = 0;
	assert_int_equal(res_ninit(&rs), -1);
	assert_int_equal(errno, ENOENT);
	expect_no_server(&rs);
	res_nclose(&rs);
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;A 127.0.0.12;");
	/* a directory */
	setenv("RESOLV_WRAPPER_CONF", dir, 1);
	errno = 0;
	assert_int_equal(res_init(), -1);
	assert_int_equal(errno, EISDIR);
	errno = 0;
	assert_int_equal(res_ninit(&rs), -1);
	assert_int_equal(errno, EISDIR);
	res_nclose(&rs);
	/* no permission (root reads it anyway) */
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
	chmod(conf, 0);
	setenv("RESOLV_WRAPPER_CONF", conf, 1);
	errno = 0;
	if (geteuid() != 0) {
		assert_int_equal(res_init(), -1);
		assert_int_equal(errno, EACCES);
	} else {
		assert_int_equal(res_init(), 0);
	}
	chmod(conf, 0600);
	/* empty */
	cwrap_test_write_file(conf, "");
	assert_int_equal(res_init(), 0);
	expect_no_server(&_res);
	/* readable: 0 and its nameserver */
	cwrap_test_write_file(conf, "nameserver 127.0.0.54\n");
	assert_int_equal(res_init(), 0);
	assert_int_equal(_res.nscount, 1);
	assert_int_equal(ntohl(_res.nsaddr_list[0].sin_addr.s_addr),
			 0x7f000036);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	unsetenv("RESOLV_WRAPPER_CONF");
	/* one line for each file that could not be read, naming it */
	assert_int_equal(rwrap_test_count(log, "RWRAP_ERROR"),
			 geteuid() != 0 ? 3 : 2);
	assert_int_equal(rwrap_test_count(log, missing), 1);
	assert_int_equal(rwrap_test_count(log, "(Is a directory)"), 1);
	free(missing);
	free(log);
}

static void test_inert(void **state)
{
	struct __res_state ours, libc;
	int (*real_ninit)(res_state) =
	    (int (*)(res_state))dlsym(RTLD_NEXT, "__res_ninit");

	(void)state;
	if (real_ninit == NULL) {
		skip(); /* no res_ninit in the C library (musl) */
	}
	unsetenv("RESOLV_WRAPPER_HOSTS");
	memset(&ours, 0, sizeof(ours));
	memset(&libc, 0, sizeof(libc));
	assert_non_null(real_ninit);
	assert_int_equal(res_ninit(&ours), 0);
	assert_int_equal(real_ninit(&libc), 0);
	assert_int_equal(ours.nscount, libc.nscount);
	assert_int_equal(ours.nsaddr_list[0].sin_family,
			 libc.nsaddr_list[0].sin_family);
	assert_int_equal(ours.nsaddr_list[0].sin_port,
			 libc.nsaddr_list[0].sin_port);
	assert_int_equal(ours.nsaddr_list[0].sin_addr.s_addr,
			 libc.nsaddr_list[0].sin_addr.s_addr);
	assert_int_equal(ours.ndots, libc.ndots);
	res_nclose(&ours);
	res_nclose(&libc);
	setenv("RESOLV_WRAPPER_HOSTS", hosts, 1);
}

static void test_reload(void **state)
{
	char *tmp = cwrap_test_path(dir, "hosts.new");
	char *other = cwrap_test_path(dir, "other");

	(void)state;
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::5357:5f0a;");
	/* edited in place */
	cwrap_test_write_file(hosts, "AAAA dc.cwrap.org fd00::1\n");
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::1;");
	/* again at once: same size, same inode, most likely the same
	 * timestamps (one clock tick) */
	cwrap_test_write_file(hosts, "AAAA dc.cwrap.org fd00::3\n");
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::3;");
	cwrap_test_write_file(hosts, "AAAA dc.cwrap.org fd00::1\n");
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::1;");
	/* replaced by rename */
	cwrap_test_write_file(tmp, "AAAA dc.cwrap.org fd00::2\n");
	assert_int_equal(rename(tmp, hosts), 0);
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::2;");
	/* the variable names another file */
	cwrap_test_write_file(other, "A other.cwrap.org 127.0.0.99\n");
	setenv("RESOLV_WRAPPER_HOSTS", other, 1);
	expect("other.cwrap.org", ns_t_a, "A 127.0.0.99;");
	setenv("RESOLV_WRAPPER_HOSTS", hosts, 1);
	cwrap_test_write_file(hosts, records);
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::5357:5f0a;");
	free(tmp);
	free(other);
}

static void test_small_buffer(void **state)
{
	unsigned char small[60];
	ns_msg m;
	int n;

	(void)state;
	/* two A records do not fit in 60 bytes: what fits, truncated */
	n = res_query("dc.cwrap.org", ns_c_in, ns_t_a, small, sizeof(small));
	assert_true(n > 12 && n <= (int)sizeof(small));
	assert_int_equal(ns_initparse(small, n, &m), 0);
	assert_int_equal(ns_msg_getflag(m, ns_f_tc), 1);
	assert_int_equal(ns_msg_count(m, ns_s_an), 1);
}

/* Bad lines: one stderr line each naming file:line; the rest answers. */
static void test_bad_lines(void **state)
{
	char *bad = cwrap_test_path(dir, "bad");
	char *log = cwrap_test_path(dir, "stderr");
	char *text;
	int saved = dup(2), fd;

	(void)state;
	cwrap_test_write_file(bad,
			      "A good.cwrap.org 127.0.0.10\n"
			      "A bad.cwrap.org 999.0.0.1\n"
			      "BOGUS x.cwrap.org y\n"
			      "SRV _x._tcp.cwrap.org t.cwrap.org notaport\n"
			      "SOA s.cwrap.org ns1 admin\n"
			      "AAAA\n"
			      "MX m.cwrap.org bad..name 10\n"
			      "AAAA good.cwrap.org fd00::10\n");
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	close(fd);
	setenv("RESOLV_WRAPPER_HOSTS", bad, 1);
	expect("good.cwrap.org", ns_t_a, "A 127.0.0.10;");
	expect("good.cwrap.org", ns_t_aaaa, "AAAA fd00::10;");
	/* an unreadable file: one line, answers as an empty one */
	setenv("RESOLV_WRAPPER_HOSTS", "/nonexistent/hosts", 1);
	expect_fail("good.cwrap.org", ns_t_a, HOST_NOT_FOUND, ns_r_nxdomain);
	expect_fail("good.cwrap.org", ns_t_a, HOST_NOT_FOUND, ns_r_nxdomain);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	setenv("RESOLV_WRAPPER_HOSTS", hosts, 1);
	text = cwrap_test_read_file(log, NULL);
	assert_non_null(text);
	fputs(text, stdout);
	for (int line = 2; line <= 7; line++) {
		char want[600];

		snprintf(want, sizeof(want), "%s:%d: ", bad, line);
		assert_int_equal(rwrap_test_count(log, want), 1);
	}
	assert_int_equal(rwrap_test_count(log, "RWRAP_ERROR"), 7);
	assert_int_equal(rwrap_test_count(log, "/nonexistent/hosts"), 1);
	free(text);
	free(bad);
	free(log);
}

static void test_fork(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;A 127.0.0.12;");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int n =
		    res_query("cwrap.org", ns_c_in, ns_t_txt, ans, sizeof(ans));

		_exit(n > 0 && memcmp(ans + n - 9, "v=spf1 mx", 9) == 0 ? 0
									: 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_aaaa),
	    cmocka_unit_test(test_cname),
	    cmocka_unit_test(test_cname_query_additional),
	    cmocka_unit_test(test_srv),
	    cmocka_unit_test(test_mx),
	    cmocka_unit_test(test_txt_uri_soa_ns_ptr),
	    cmocka_unit_test(test_nxdomain_nodata),
	    cmocka_unit_test(test_entry_points),
	    cmocka_unit_test(test_search),
	    cmocka_unit_test(test_ninit_state),
	    cmocka_unit_test(test_conf_unreadable),
	    cmocka_unit_test(test_inert),
	    cmocka_unit_test(test_reload),
	    cmocka_unit_test(test_small_buffer),
	    cmocka_unit_test(test_bad_lines),
	    cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
