/*
 * Hosts lookups cost the size of the file to load and the size of their
 * answer to answer, whatever the file holds: a name on many lines with
 * thousands of aliases (every line's aliases are in the answer, repeats
 * kept, as glibc's files module), thousands of lines of one address. The
 * same queries on a file of size N and one of 4N (four times the aliases
 * per line and the lines of one address, so anything quadratic takes 16
 * times longer): the answers are checked, and the time may grow by less
 * than 10 times (best of three runs of each, load included, in CPU time).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include "nwrap_test.h"

#define BIG_LINES 40 /* lines of localhost.cwrap.org */

struct scale {
	const char *path;
	size_t aliases; /* per big line, one repeat included */
	size_t dups;	/* lines of 127.0.0.2 */
};

static char *scale_file(const char *name, size_t naliases, size_t ndups)
{
	size_t cap = BIG_LINES * (naliases * 24 + 64) + ndups * 40 + 256;
	char *t = malloc(cap), *p = t, *path;

	assert_non_null(t);
	for (int l = 0; l < BIG_LINES; l++) {
		p += sprintf(p, "127.0.0.1 localhost.cwrap.org");
		for (size_t a = 0; a + 1 < naliases; a++) {
			p += sprintf(p, " al%zu.cwrap.org", a);
		}
		p += sprintf(p, " al0.cwrap.org\n");
	}
	for (size_t d = 0; d < ndups; d++) {
		p += sprintf(p, "127.0.0.2 dup%zu.cwrap.org\n", d);
	}
	p += sprintf(p, "fd00::1 localhost.cwrap.org six\n"
			"::ffff:127.0.0.3 mapped.cwrap.org "
			"localhost.cwrap.org\n");
	assert_true((size_t)(p - t) < cap);
	path = nt_file(name, t, NULL);
	free(t);
	return path;
}

static size_t count(char **v)
{
	size_t n = 0;

	while (v[n] != NULL) {
		n++;
	}
	return n;
}

/* The thread's CPU time, not the wall clock: other jobs on a loaded
 * machine (a CI runner, parallel ctest) stretch the second less than the
 * first and made a linear run look quadratic. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every hosts path once on the file, its answers checked; the seconds it
 * took, the file's load included. */
static double run(const struct scale *s)
{
	size_t nal = BIG_LINES * s->aliases;
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	struct in_addr a4;
	struct hostent *h;
	char host[NI_MAXHOST], buf[INET6_ADDRSTRLEN];
	size_t n = 0;
	double t0;

	setenv("NSS_WRAPPER_HOSTS", s->path, 1);
	t0 = now();
	/* every big line's aliases, then the mapped line's alias and name */
	h = gethostbyname("localhost.cwrap.org");
	assert_non_null(h);
	assert_string_equal(h->h_name, "localhost.cwrap.org");
	assert_int_equal(count(h->h_aliases), nal + 2);
	assert_string_equal(h->h_aliases[0], "al0.cwrap.org");
	assert_string_equal(h->h_aliases[s->aliases - 1], "al0.cwrap.org");
	assert_string_equal(h->h_aliases[nal], "localhost.cwrap.org");
	assert_string_equal(h->h_aliases[nal + 1], "mapped.cwrap.org");
	assert_int_equal(count(h->h_addr_list), BIG_LINES + 1);
	assert_string_equal(inet_ntop(AF_INET, h->h_addr_list[BIG_LINES], buf,
				      sizeof(buf)),
			    "127.0.0.3");
	h = gethostbyname("AL7.cwrap.org");
	assert_non_null(h);
	assert_int_equal(count(h->h_aliases), nal);
	assert_int_equal(count(h->h_addr_list), BIG_LINES);
	/* the IPv6 lines: fd00::1 and the mapped one */
	h = gethostbyname2("localhost.cwrap.org", AF_INET6);
	assert_non_null(h);
	assert_int_equal(count(h->h_aliases), 3);
	assert_int_equal(count(h->h_addr_list), 2);

	inet_pton(AF_INET, "127.0.0.2", &a4);
	h = gethostbyaddr(&a4, sizeof(a4), AF_INET);
	assert_non_null(h);
	assert_string_equal(h->h_name, "dup0.cwrap.org");
	inet_pton(AF_INET, "127.0.0.1", &a4);
	h = gethostbyaddr(&a4, sizeof(a4), AF_INET);
	assert_non_null(h);
	assert_int_equal(count(h->h_aliases), s->aliases);

	assert_int_equal(getaddrinfo("localhost.cwrap.org", NULL, &hints, &ai),
			 0);
	for (struct addrinfo *p = ai; p != NULL; p = p->ai_next) {
		n++;
	}
	assert_int_equal(n, BIG_LINES + 1);
	freeaddrinfo(ai);

	inet_pton(AF_INET, "127.0.0.2", &s4.sin_addr);
	assert_int_equal(getnameinfo((const void *)&s4, sizeof(s4), host,
				     sizeof(host), NULL, 0, NI_NAMEREQD),
			 0);
	assert_string_equal(host, "dup0.cwrap.org");

	/* the IPv4 lines, the mapped one as IPv4 */
	n = 0;
	sethostent(0);
	while ((h = gethostent()) != NULL) {
		assert_int_equal(h->h_addrtype, AF_INET);
		n++;
	}
	endhostent();
	assert_int_equal(n, BIG_LINES + s->dups + 1);
	return now() - t0;
}

static void test_linear(void **state)
{
	struct scale s[2] = {
	    {scale_file("hosts1", 1500, 10000), 1500, 10000},
	    {scale_file("hosts4", 6000, 40000), 6000, 40000},
	};
	double best[2] = {1e9, 1e9};

	(void)state;
	for (int r = 0; r < 3; r++) {
		for (int k = 0; k < 2; k++) {
			double t = run(&s[k]);

			best[k] = t < best[k] ? t : best[k];
		}
	}
	print_message("size N: %.3f s, size 4N: %.3f s (%.1fx)\n", best[0],
		      best[1], best[1] / best[0]);
	/* linear is about 4x, quadratic 16x; 10 ms of slack for the noise
	 * of a loaded machine on the small one */
	assert_true(best[1] < 10 * (best[0] + 0.01));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_linear),
	};

	setenv("NSS_WRAPPER_HOSTS_ONLY", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
