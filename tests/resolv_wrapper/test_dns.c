/*
 * RESOLV_WRAPPER_CONF with socket_wrapper: the queries reach DNS servers
 * that run on emulated addresses (rwrap_dns_srv, started here under the
 * same wrappers), over UDP, then TCP when the answer is truncated; IPv6
 * nameservers; the next server when one refuses, fails or is silent;
 * search lists as the servers see them; res_nsend; use-vc; fork. The test
 * is registered with both preload orders.
 */
#include "rwrap_test.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *dir, *records, *conf, *log53, *log6, *logfail, *logsilent;
static pid_t srv53, srv6, srvfail, srvsilent;
static unsigned char ans[65536];

static int setup(void **state)
{
	char big[1000 + 32];

	(void)state;
	dir = cwrap_test_mkdtemp("rwrap-dns");
	records = cwrap_test_path(dir, "records");
	conf = cwrap_test_path(dir, "resolv.conf");
	log53 = cwrap_test_path(dir, "log53");
	log6 = cwrap_test_path(dir, "log6");
	logfail = cwrap_test_path(dir, "logfail");
	logsilent = cwrap_test_path(dir, "logsilent");
	memset(big, 'y', sizeof(big));
	memcpy(big, "TXT big.cwrap.org ", 18);
	big[1000] = '\n';
	big[1001] = '\0';
	{
		char text[4096];

		snprintf(text, sizeof(text),
			 "A dc.cwrap.org 127.0.0.10\n"
			 "AAAA dc.cwrap.org fd00::5357:5f0a\n"
			 "CNAME kerberos.cwrap.org dc.cwrap.org\n"
			 "SRV _kerberos._udp.cwrap.org kerberos.cwrap.org 88\n"
			 "A dc.sub.cwrap.org 127.0.0.20\n"
			 "TXT cwrap.org v=spf1 mx\n"
			 "%s",
			 big);
		cwrap_test_write_file(records, text);
	}
	setenv("SOCKET_WRAPPER_DIR", dir, 1);
	setenv("SOCKET_WRAPPER_DEFAULT_IFACE", "20", 1);
	unsetenv("RESOLV_WRAPPER_HOSTS");
	srv53 = rwrap_test_server("127.0.0.53", records, log53, NULL);
	srv6 = rwrap_test_server("fd00::5357:5f36", records, log6, NULL);
	srvfail = rwrap_test_server("127.0.0.55", records, logfail, "--rcode",
				    "2", NULL);
	srvsilent = rwrap_test_server("127.0.0.56", records, logsilent,
				      "--silent", NULL);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
	setenv("RESOLV_WRAPPER_CONF", conf, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rwrap_test_stop(srv53);
	rwrap_test_stop(srv6);
	rwrap_test_stop(srvfail);
	rwrap_test_stop(srvsilent);
	unsetenv("RESOLV_WRAPPER_CONF");
	cwrap_test_rmtree(dir);
	free(records);
	free(conf);
	free(log53);
	free(log6);
	free(logfail);
	free(logsilent);
	free(dir);
	return 0;
}

static void expect(const char *name, int type, const char *want)
{
	int n;
	char *got;

	h_errno = 0;
	n = res_query(name, ns_c_in, type, ans, sizeof(ans));
	if (n < 0) {
		fail_msg("res_query(%s, %d): -1, h_errno %d", name, type,
			 h_errno);
	}
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, want);
	free(got);
}

static void test_udp(void **state)
{
	int before = rwrap_test_count(log53, "udp dc.cwrap.org 1\n");

	(void)state;
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;");
	expect("kerberos.cwrap.org", ns_t_aaaa,
	       "CNAME dc.cwrap.org;AAAA fd00::5357:5f0a;");
	expect("_kerberos._udp.cwrap.org", ns_t_srv,
	       "SRV 1 100 88 kerberos.cwrap.org;");
	assert_int_equal(rwrap_test_count(log53, "udp dc.cwrap.org 1\n"),
			 before + 1);
	/* NXDOMAIN and NODATA from a server, as from the file */
	assert_int_equal(
	    res_query("nope.cwrap.org", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, HOST_NOT_FOUND);
	assert_int_equal(
	    res_query("dc.cwrap.org", ns_c_in, ns_t_txt, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, NO_DATA);
}

static void test_tcp_after_truncation(void **state)
{
	int n;
	char *got;

	(void)state;
	/* 1000 bytes of TXT do not fit in a 512-byte UDP answer */
	n = res_query("big.cwrap.org", ns_c_in, ns_t_txt, ans, sizeof(ans));
	assert_true(n > 1000);
	got = rwrap_test_format(ans, n);
	assert_string_equal(got + strlen(got) - 6, "yyyyy\n");
	assert_null(strstr(got, " tc"));
	free(got);
	assert_int_equal(rwrap_test_count(log53, "udp big.cwrap.org 16"), 1);
	assert_int_equal(rwrap_test_count(log53, "tcp big.cwrap.org 16"), 1);
	/* use-vc: TCP from the start */
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\noptions use-vc\n");
	expect("cwrap.org", ns_t_txt, "TXT v=spf1 mx;");
	assert_int_equal(rwrap_test_count(log53, "tcp cwrap.org 16"), 1);
	assert_int_equal(rwrap_test_count(log53, "udp cwrap.org 16"), 0);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
}

static void test_ipv6_nameserver(void **state)
{
	(void)state;
	cwrap_test_write_file(conf, "nameserver fd00::5357:5f36\n");
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;");
	assert_int_equal(rwrap_test_count(log6, "udp dc.cwrap.org 1"), 1);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
}

static void test_search(void **state)
{
	struct __res_state rs;
	int n;
	char *got;

	(void)state;
	cwrap_test_write_file(
	    conf, "nameserver 127.0.0.53\n"
		  "search nothing.cwrap.org sub.cwrap.org cwrap.org\n");
	n = res_search("dc", ns_c_in, ns_t_a, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "A 127.0.0.20;");
	free(got);
	assert_int_equal(rwrap_test_count(log53, "udp dc.nothing.cwrap.org 1"),
			 1);
	assert_int_equal(rwrap_test_count(log53, "udp dc.sub.cwrap.org 1"), 1);
	memset(&rs, 0, sizeof(rs));
	assert_int_equal(res_ninit(&rs), 0);
	n = res_nsearch(&rs, "kerberos", ns_c_in, ns_t_a, ans, sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "CNAME dc.cwrap.org;A 127.0.0.10;");
	free(got);
	/* res_nquerydomain and res_nsend through the server */
	n = res_nquerydomain(&rs, "_kerberos._udp", "cwrap.org", ns_c_in,
			     ns_t_srv, ans, sizeof(ans));
	assert_true(n > 0);
	{
		unsigned char q[512];
		int qlen =
		    res_nmkquery(&rs, ns_o_query, "dc.cwrap.org", ns_c_in,
				 ns_t_aaaa, NULL, 0, NULL, q, sizeof(q));

		n = res_nsend(&rs, q, qlen, ans, sizeof(ans));
		assert_true(n > 12);
		assert_memory_equal(ans, q, 2);
		n = res_send(q, qlen, ans, sizeof(ans));
		assert_true(n > 12);
	}
	res_nclose(&rs);
	/* the calls on the thread's _res: res_init, res_querydomain,
	 * res_close */
	assert_int_equal(res_init(), 0);
	assert_int_equal(_res.nscount, 1);
	assert_int_equal(_res.nsaddr_list[0].sin_addr.s_addr,
			 htonl(0x7f000035));
	n = res_querydomain("kerberos", "cwrap.org", ns_c_in, ns_t_a, ans,
			    sizeof(ans));
	got = rwrap_test_answers(ans, n);
	assert_string_equal(got, "CNAME dc.cwrap.org;A 127.0.0.10;");
	free(got);
	res_close();
	n = res_query("dc.sub.cwrap.org", ns_c_in, ns_t_a, ans, sizeof(ans));
	assert_true(n > 0);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
}

static void test_failover(void **state)
{
	double t;

	(void)state;
	/* nobody on .60, SERVFAIL from .55: .53 answers */
	cwrap_test_write_file(conf, "nameserver 127.0.0.60\n"
				    "nameserver 127.0.0.55\n"
				    "nameserver 127.0.0.53\n"
				    "options timeout:1\n");
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;");
	assert_true(rwrap_test_count(logfail, "udp dc.cwrap.org 1") >= 1);
	/* SERVFAIL alone: TRY_AGAIN */
	cwrap_test_write_file(conf, "nameserver 127.0.0.55\n");
	assert_int_equal(
	    res_query("dc.cwrap.org", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, TRY_AGAIN);
	/* nobody there: TRY_AGAIN (a kernel refuses at once; socket_wrapper
	 * drops the datagram, so the one try of a second times out) */
	cwrap_test_write_file(conf, "nameserver 127.0.0.60\n"
				    "options timeout:1 attempts:1\n");
	t = cwrap_test_now();
	assert_int_equal(
	    res_query("dc.cwrap.org", ns_c_in, ns_t_a, ans, sizeof(ans)), -1);
	assert_int_equal(h_errno, TRY_AGAIN);
	assert_true(cwrap_test_now() - t < 20.0);
	/* a silent server: timeout:1 attempts:1, then the next one */
	cwrap_test_write_file(conf, "nameserver 127.0.0.56\n"
				    "nameserver 127.0.0.53\n"
				    "options timeout:1 attempts:1\n");
	t = cwrap_test_now();
	expect("dc.cwrap.org", ns_t_aaaa, "AAAA fd00::5357:5f0a;");
	assert_true(cwrap_test_now() - t >= 0.9);
	assert_true(cwrap_test_now() - t < 30.0);
	assert_int_equal(rwrap_test_count(logsilent, "udp dc.cwrap.org 28"), 1);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
}

static void test_fork(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int n = res_query("dc.sub.cwrap.org", ns_c_in, ns_t_a, ans,
				  sizeof(ans));

		_exit(n > 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	expect("dc.cwrap.org", ns_t_a, "A 127.0.0.10;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_udp),
	    cmocka_unit_test(test_tcp_after_truncation),
	    cmocka_unit_test(test_ipv6_nameserver),
	    cmocka_unit_test(test_search),
	    cmocka_unit_test(test_failover),
	    cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
