/*
 * Many threads at once: queries answered from the record file while
 * another thread rewrites it, then queries through a DNS server on an
 * emulated address (socket_wrapper preloaded too). Each answer must be
 * whole and the one asked for. Labelled "threads" (run under TSan).
 */
#include "rwrap_test.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <pthread.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 8
#define NQUERIES 200

static char *dir, *hosts, *conf, *srvlog;
static int stop_writer;

static void write_records(const char *path, int gen)
{
	char *text = malloc(64 * 1024), *p = text;

	assert_non_null(text);
	for (int i = 0; i < 100; i++) {
		p += sprintf(p, "A host%d.cwrap.org 127.0.%d.%d\n", i, i,
			     i % 250 + 1);
		p += sprintf(p, "TXT host%d.cwrap.org gen%d\n", i, gen);
	}
	cwrap_test_write_file(path, text);
	free(text);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned char ans[1024];
	struct __res_state rs;
	int bad = 0;

	memset(&rs, 0, sizeof(rs));
	if (res_ninit(&rs) != 0) {
		return (void *)1L;
	}
	for (int k = 0; k < NQUERIES; k++) {
		int i = (int)((id * 31 + k) % 100), n;
		char name[64], want[32];
		ns_msg m;
		ns_rr rr;

		snprintf(name, sizeof(name), "host%d.cwrap.org", i);
		snprintf(want, sizeof(want), "127.0.%d.%d", i, i % 250 + 1);
		n = (k & 1)
			? res_nquery(&rs, name, ns_c_in, ns_t_a, ans,
				     sizeof(ans))
			: res_query(name, ns_c_in, ns_t_a, ans, sizeof(ans));
		if (n < 0 || ns_initparse(ans, n, &m) != 0 ||
		    ns_msg_count(m, ns_s_an) != 1 ||
		    ns_parserr(&m, ns_s_an, 0, &rr) != 0 ||
		    ns_rr_rdlen(rr) != 4) {
			bad++;
			continue;
		}
		{
			char got[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, ns_rr_rdata(rr), got, sizeof(got));
			bad += strcmp(got, want) != 0;
		}
	}
	res_nclose(&rs);
	return (void *)(long)bad;
}

static void *writer(void *arg)
{
	int gen = 0;

	(void)arg;
	while (!__atomic_load_n(&stop_writer, __ATOMIC_RELAXED)) {
		char *tmp = cwrap_test_path(dir, "hosts.tmp");

		write_records(tmp, ++gen);
		rename(tmp, hosts);
		free(tmp);
		usleep(2000);
	}
	return NULL;
}

static void run_threads(bool with_writer)
{
	pthread_t t[NTHREADS], w;

	if (with_writer) {
		__atomic_store_n(&stop_writer, 0, __ATOMIC_RELAXED);
		assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
	}
	for (long i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)i),
				 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		void *bad;

		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_int_equal((long)bad, 0);
	}
	if (with_writer) {
		__atomic_store_n(&stop_writer, 1, __ATOMIC_RELAXED);
		pthread_join(w, NULL);
	}
}

static void test_threads_hosts(void **state)
{
	(void)state;
	write_records(hosts, 0);
	setenv("RESOLV_WRAPPER_HOSTS", hosts, 1);
	run_threads(true);
	unsetenv("RESOLV_WRAPPER_HOSTS");
}

static void test_threads_server(void **state)
{
	pid_t srv;
	char *records = cwrap_test_path(dir, "records");

	(void)state;
	write_records(records, 0);
	setenv("SOCKET_WRAPPER_DIR", dir, 1);
	setenv("SOCKET_WRAPPER_DEFAULT_IFACE", "20", 1);
	srv = rwrap_test_server("127.0.0.53", records, srvlog, NULL);
	cwrap_test_write_file(conf, "nameserver 127.0.0.53\n");
	setenv("RESOLV_WRAPPER_CONF", conf, 1);
	run_threads(false);
	unsetenv("RESOLV_WRAPPER_CONF");
	rwrap_test_stop(srv);
	assert_int_equal(rwrap_test_count(srvlog, "udp host"),
			 NTHREADS * NQUERIES);
	free(records);
}

static int setup(void **state)
{
	(void)state;
	dir = cwrap_test_mkdtemp("rwrap-threads");
	hosts = cwrap_test_path(dir, "hosts");
	conf = cwrap_test_path(dir, "resolv.conf");
	srvlog = cwrap_test_path(dir, "srvlog");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cwrap_test_rmtree(dir);
	free(hosts);
	free(conf);
	free(srvlog);
	free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_hosts),
	    cmocka_unit_test(test_threads_server),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
