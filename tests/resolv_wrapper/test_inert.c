/*
 * With RESOLV_WRAPPER_HOSTS and RESOLV_WRAPPER_CONF unset, every
 * interposed call is libc's: each gives what libc's own function (found
 * with dlsym(RTLD_NEXT)) gives, result, h_errno and errno. The program
 * runs itself again under nwrap_noinet --deny, so libc's queries fail
 * with EACCES at the socket instead of leaving the machine.
 */
#include "rwrap_test.h"

#include <arpa/nameser.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char a1[512], a2[512];

#define REAL(type, name) ((type)dlsym(RTLD_NEXT, name))

/* libc's res_init under the name it exports, and whether it has the calls
 * on a state (musl has neither __res_ spellings nor res_n*). */
#ifdef HAVE___RES_INIT
#define LIBC_RES_INIT "__res_init"
#else
#define LIBC_RES_INIT "res_init"
#endif
#ifdef HAVE___RES_NINIT
#define WITH_STATE(...) __VA_ARGS__
#else
#define WITH_STATE(...)
#endif

typedef int (*query_fn)(const char *, int, int, unsigned char *, int);
typedef int (*nquery_fn)(res_state, const char *, int, int, unsigned char *,
			 int);
typedef int (*qd_fn)(const char *, const char *, int, int, unsigned char *,
		     int);
typedef int (*nqd_fn)(res_state, const char *, const char *, int, int,
		      unsigned char *, int);
typedef int (*send_fn)(const unsigned char *, int, unsigned char *, int);
typedef int (*nsend_fn)(res_state, const unsigned char *, int, unsigned char *,
			int);

static void same(int ours, int ours_h, int ours_e, int libc, int libc_h,
		 int libc_e)
{
	assert_int_equal(ours, libc);
	assert_int_equal(ours_h, libc_h);
	assert_int_equal(ours_e, libc_e);
}

#define COMPARE(call_ours, call_libc)                                          \
	do {                                                                   \
		int r1, h1, e1, r2, h2, e2;                                    \
		h_errno = 0;                                                   \
		errno = 0;                                                     \
		r1 = call_ours;                                                \
		h1 = h_errno;                                                  \
		e1 = errno;                                                    \
		h_errno = 0;                                                   \
		errno = 0;                                                     \
		r2 = call_libc;                                                \
		h2 = h_errno;                                                  \
		e2 = errno;                                                    \
		same(r1, h1, e1, r2, h2, e2);                                  \
	} while (0)

static void test_inert_calls(void **state)
{
	struct __res_state s1, s2;
	unsigned char q[512];
	int qlen;

	(void)state;
	unsetenv("RESOLV_WRAPPER_HOSTS");
	unsetenv("RESOLV_WRAPPER_CONF");
	setenv("RES_OPTIONS", "timeout:1 attempts:1", 1);
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	WITH_STATE(COMPARE(res_ninit(&s1),
			   REAL(int (*)(res_state), "__res_ninit")(&s2));
		   assert_int_equal(s1.nscount, s2.nscount);
		   assert_int_equal(s1.ndots, s2.ndots);)
	COMPARE(res_init(), REAL(int (*)(void), LIBC_RES_INIT)());
	COMPARE(res_query("dc.cwrap.org", ns_c_in, ns_t_a, a1, sizeof(a1)),
		REAL(query_fn, "res_query")("dc.cwrap.org", ns_c_in, ns_t_a, a2,
					    sizeof(a2)));
	WITH_STATE(COMPARE(
	    res_nquery(&s1, "dc.cwrap.org", ns_c_in, ns_t_a, a1, sizeof(a1)),
	    REAL(nquery_fn, "res_nquery")(&s2, "dc.cwrap.org", ns_c_in, ns_t_a,
					  a2, sizeof(a2)));)
	COMPARE(res_search("dc", ns_c_in, ns_t_a, a1, sizeof(a1)),
		REAL(query_fn, "res_search")("dc", ns_c_in, ns_t_a, a2,
					     sizeof(a2)));
	WITH_STATE(COMPARE(
	    res_nsearch(&s1, "dc", ns_c_in, ns_t_a, a1, sizeof(a1)),
	    REAL(nquery_fn, "res_nsearch")(&s2, "dc", ns_c_in, ns_t_a, a2,
					   sizeof(a2)));)
	COMPARE(
	    res_querydomain("dc", "cwrap.org", ns_c_in, ns_t_a, a1, sizeof(a1)),
	    REAL(qd_fn, "res_querydomain")("dc", "cwrap.org", ns_c_in, ns_t_a,
					   a2, sizeof(a2)));
	WITH_STATE(COMPARE(res_nquerydomain(&s1, "dc", "cwrap.org", ns_c_in,
					    ns_t_a, a1, sizeof(a1)),
			   REAL(nqd_fn, "res_nquerydomain")(
			       &s2, "dc", "cwrap.org", ns_c_in, ns_t_a, a2,
			       sizeof(a2)));)
	qlen = res_mkquery(ns_o_query, "dc.cwrap.org", ns_c_in, ns_t_a, NULL, 0,
			   NULL, q, sizeof(q));
	assert_true(qlen > 0);
	COMPARE(res_send(q, qlen, a1, sizeof(a1)),
		REAL(send_fn, "res_send")(q, qlen, a2, sizeof(a2)));
	WITH_STATE(COMPARE(res_nsend(&s1, q, qlen, a1, sizeof(a1)),
			   REAL(nsend_fn, "res_nsend")(&s2, q, qlen, a2,
						       sizeof(a2)));
		   res_nclose(&s1);
		   REAL(void (*)(res_state), "__res_nclose")(&s2);
		   res_close();)
	(void)s1, (void)s2;
	unsetenv("RES_OPTIONS");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inert_calls),
	};

	if (getenv("RWRAP_INERT_FILTERED") == NULL) {
		char noinet[4096];

		snprintf(noinet, sizeof(noinet), "%s/nwrap_noinet",
			 getenv("CWRAP_TEST_BIN"));
		setenv("RWRAP_INERT_FILTERED", "1", 1);
		execl(noinet, noinet, "--deny", argv[0], (char *)NULL);
		perror(noinet);
		return 1;
	}
	(void)argc;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
