/*
 * Lookups from many threads while the files are rewritten: passwd and
 * group are replaced by rename(2), so "stable" must be found on every
 * lookup; hosts is rewritten in place, so a reader may see a partial file
 * and miss the name (then getaddrinfo() says what the system's resolver
 * says of a name it does not know), but must never crash or see a wrong
 * address.
 * Labelled `threads`: also run under TSan.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <time.h>

#include "nwrap_test.h"

#define NTHREADS 8

static char *passwd_path, *group_path, *hosts_path;
static int stop;
static unsigned long failures, lookups, host_hits;
/* getaddrinfo()'s answer for a name not in the hosts file: the system's
 * resolver's, which nss_wrapper asks next (EAI_NONAME, or EAI_AGAIN on a
 * machine whose DNS server cannot be reached). */
static int miss_rc;

static void *reader(void *arg)
{
	char buf[4096];
	unsigned long n = 0, bad = 0, hits = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct passwd pw, *pwr;
		struct group gr, *grr;
		struct addrinfo h = {.ai_family = AF_INET,
				     .ai_socktype = SOCK_STREAM},
				*ai;
		gid_t g[64];
		int ng = 64, rc;

		if (getpwnam_r("stable", &pw, buf, sizeof(buf), &pwr) != 0 ||
		    pwr == NULL || pw.pw_uid != 4242) {
			bad++;
		}
		if (getpwuid_r(4242, &pw, buf, sizeof(buf), &pwr) != 0 ||
		    pwr == NULL || strcmp(pw.pw_name, "stable") != 0) {
			bad++;
		}
		if (getgrnam_r("stable", &gr, buf, sizeof(buf), &grr) != 0 ||
		    grr == NULL || gr.gr_gid != 4242) {
			bad++;
		}
		if (getgrouplist("stable", 1, g, &ng) != 2 || g[1] != 4242) {
			bad++;
		}
		rc = getaddrinfo("stable.cwrap.org", NULL, &h, &ai);
		if (rc == 0) {
			struct sockaddr_in *s = (void *)ai->ai_addr;

			if (ntohl(s->sin_addr.s_addr) != 0x7f00002a) {
				bad++;
			}
			freeaddrinfo(ai);
			hits++;
		} else if (rc != EAI_NONAME && rc != miss_rc) {
			bad++;
		}
		n++;
	}
	__atomic_add_fetch(&failures, bad, __ATOMIC_RELAXED);
	__atomic_add_fetch(&lookups, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&host_hits, hits, __ATOMIC_RELAXED);
	return NULL;
}

/* A file with `stable` and `extra` other lines. */
static char *content(const char *fmt_stable, const char *fmt_other, int extra)
{
	size_t cap = 64 + (size_t)extra * 128, o = 0;
	char *s = malloc(cap);

	for (int i = 0; i < extra; i++) {
		o += (size_t)snprintf(s + o, cap - o, fmt_other, i, i, i);
		if (i == extra / 2) {
			o += (size_t)snprintf(s + o, cap - o, "%s", fmt_stable);
		}
	}
	if (extra == 0) {
		snprintf(s, cap, "%s", fmt_stable);
	}
	return s;
}

static void test_lookups_while_rewritten(void **state)
{
	pthread_t t[NTHREADS];
	struct timespec start, now;
	int round = 0;

	(void)state;
	{
		struct addrinfo h = {.ai_family = AF_INET}, *ai = NULL;

		miss_rc = getaddrinfo("missing.cwrap.org", NULL, &h, &ai);
		assert_int_not_equal(miss_rc, 0);
		print_message("a name not in the file: %s\n",
			      gai_strerror(miss_rc));
	}
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int extra = (round * 37) % 300;
		char *p = content("stable:x:4242:4242:Stable:/:/bin/sh\n",
				  "u%d:x:%d:%d::/:/bin/sh\n", extra);
		char *g =
		    content("stable:x:4242:stable\n", "g%d:x:%d:u%d\n", extra);
		char *h = content("127.0.0.42 stable.cwrap.org\n",
				  "10.1.%d.%d host%d.cwrap.org\n", extra % 250);

		nt_replace(passwd_path, p);
		nt_replace(group_path, g);
		cwrap_test_write_file(hosts_path, h);
		free(p);
		free(g);
		free(h);
		round++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L +
		     (now.tv_nsec - start.tv_nsec) <
		 1500000000L);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
	}
	print_message("%d rewrites, %lu lookup rounds, %lu host hits\n", round,
		      lookups, host_hits);
	assert_int_equal(failures, 0);
	assert_true(lookups > 0);
	assert_true(host_hits > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lookups_while_rewritten),
	};

	passwd_path = nt_file("passwd", "stable:x:4242:4242:Stable:/:/bin/sh\n",
			      "NSS_WRAPPER_PASSWD");
	group_path =
	    nt_file("group", "stable:x:4242:stable\n", "NSS_WRAPPER_GROUP");
	hosts_path = nt_file("hosts", "127.0.0.42 stable.cwrap.org\n",
			     "NSS_WRAPPER_HOSTS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
