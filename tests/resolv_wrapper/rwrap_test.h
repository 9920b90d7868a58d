/*
 * Helpers of the resolv_wrapper tests: answers printed as text for
 * comparison, the test DNS server, temporary files. Compiled into each
 * test (rwrap_test.c). No global state.
 */
#ifndef RWRAP_TEST_H
#define RWRAP_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cwrap_test.h"

#include <netinet/in.h>
#include <resolv.h>

#include "cwrap_config.h"

#ifndef HAVE___RES_NINIT
/* A C library whose resolver keeps no state (musl) has no res_n* calls:
 * a test's calls on a state become the plain calls, which use _res
 * (filled by resolv_wrapper's res_init), and the state a test inspects
 * is a copy of _res. Options a test sets in its state are set in _res. */
static inline int rwrap_test_res_ninit(res_state s)
{
	int rc = res_init();

	*s = _res;
	return rc;
}
/* call, with the options of state s in _res for its time, and its
 * h_errno given back to s */
#define RWRAP_TEST_ON(s, call)                                                 \
	({                                                                     \
		unsigned long saved_ = _res.options;                           \
		int r_;                                                        \
		_res.options = (s)->options;                                   \
		r_ = (call);                                                   \
		(s)->res_h_errno = _res.res_h_errno;                           \
		_res.options = saved_;                                         \
		r_;                                                            \
	})
#define res_ninit(s) rwrap_test_res_ninit(s)
#define res_nclose(s) ((void)(s))
#define res_nquery(s, ...) RWRAP_TEST_ON(s, res_query(__VA_ARGS__))
#define res_nsearch(s, ...) RWRAP_TEST_ON(s, res_search(__VA_ARGS__))
#define res_nquerydomain(s, ...) RWRAP_TEST_ON(s, res_querydomain(__VA_ARGS__))
#define res_nsend(s, ...) RWRAP_TEST_ON(s, res_send(__VA_ARGS__))
#define res_nmkquery(s, ...) ((void)(s), res_mkquery(__VA_ARGS__))
#define res_close() ((void)0)
#endif

/* A DNS message as lines, one per record:
 *     "rcode=0 flags=qr,aa,rd,ra\n"
 *     "an dc.cwrap.org A 127.0.0.10\n"
 *     "ar dc.cwrap.org AAAA fd00::5357:5f0a\n"
 * read with ns_initparse()/ns_parserr()/dn_expand() (asserts they accept
 * it). The text is malloc'd. */
char *rwrap_test_format(const unsigned char *msg, int len);

/* The answer section only ("A 127.0.0.10;CNAME x;"), malloc'd. */
char *rwrap_test_answers(const unsigned char *msg, int len);

/* The length of the DNS message at msg (within cap bytes), by walking
 * its records: for answers whose length res_query does not return. */
int rwrap_test_msglen(const unsigned char *msg, int cap);

/* Start $CWRAP_TEST_BIN/rwrap_dns_srv ADDR RECORDS [ARGS...] (NULL-ended
 * extra arguments); waits for "ready". Its log goes to `log`. */
pid_t rwrap_test_server(const char *addr, const char *records, const char *log,
			...);
void rwrap_test_stop(pid_t pid);

/* Count of lines of `path` that contain `needle`. */
int rwrap_test_count(const char *path, const char *needle);

#endif
