/*
 * The resolver calls with glibc's semantics (resolv/res_query.c), answered
 * from the record file (RESOLV_WRAPPER_HOSTS, which wins when both are
 * set, as upstream has it) or by the nameservers of RESOLV_WRAPPER_CONF:
 *   res_nquery       one question; -1 with h_errno HOST_NOT_FOUND for
 *                    NXDOMAIN, NO_DATA for an empty answer, TRY_AGAIN
 *                    when no server answers or SERVFAIL, NO_RECOVERY else;
 *   res_nquerydomain NAME.DOMAIN;
 *   res_nsearch      the search list and ndots, as glibc applies them;
 *   res_nsend        a whole query message, the answer as it comes;
 *   res_ninit        libc's, then our nameservers, search list and options
 *                    written into the state, for programs that look there.
 * The state's option bits the program set are honoured (RES_RECURSE,
 * RES_DEFNAMES, RES_DNSRCH, RES_NOTLDQUERY, RES_USEVC, RES_IGNTC); where
 * the query goes and the search list come from our configuration, read at
 * each call. State: one mutex around libc's res_ninit, res_init and
 * res_nclose (see rwrap_libc_lock), and the fork handlers, registered on
 * the first wrapped call.
 */
#include "rwrap.h"
#include "rwrap_libc.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t rwrap_atfork_once = PTHREAD_ONCE_INIT;
/* Held around libc's res_ninit, res_init and res_nclose: they attach the
 * state to glibc's table of configurations under an internal lock that
 * ThreadSanitizer cannot see; ours makes the order visible. Taken alone. */
static pthread_mutex_t rwrap_libc_lock = PTHREAD_MUTEX_INITIALIZER;

static void rwrap_atfork_prepare(void)
{
	pthread_mutex_lock(&rwrap_libc_lock);
	rwrap_cache_atfork_prepare();
}

static void rwrap_atfork_parent(void)
{
	rwrap_cache_atfork_parent();
	pthread_mutex_unlock(&rwrap_libc_lock);
}

static void rwrap_atfork_child(void)
{
	rwrap_cache_atfork_child();
	pthread_mutex_init(&rwrap_libc_lock, NULL);
}

static void rwrap_atfork_register(void)
{
	pthread_atfork(rwrap_atfork_prepare, rwrap_atfork_parent,
		       rwrap_atfork_child);
}

static const char *rwrap_var(const char *name)
{
	const char *s = getenv(name);

	return s != NULL && *s != '\0' ? s : NULL;
}

bool rwrap_mode(struct rwrap_mode *m)
{
	m->hosts = rwrap_var("RESOLV_WRAPPER_HOSTS");
	m->conf = rwrap_var("RESOLV_WRAPPER_CONF");
	if (m->hosts == NULL && m->conf == NULL) {
		return false;
	}
	pthread_once(&rwrap_atfork_once, rwrap_atfork_register);
	return true;
}

bool rwrap_enabled(void)
{
	struct rwrap_mode m;

	return rwrap_mode(&m);
}

static void rwrap_herrno(res_state statp, int e)
{
	if (statp != NULL) {
		statp->res_h_errno = e;
	}
	h_errno = e;
}

static unsigned long rwrap_options(res_state statp)
{
	return statp != NULL && (statp->options & RES_INIT) != 0
		   ? statp->options
		   : RES_DEFAULT;
}

/* The answer to query q (qlen bytes) from the file or the servers: its
 * length, or -1 with errno. */
static int rwrap_exchange(res_state statp, const uint8_t *q, size_t qlen,
			  uint8_t *answer, size_t anslen)
{
	struct rwrap_mode m;
	struct rwrap_conf c;
	unsigned long opts = rwrap_options(statp);

	rwrap_mode(&m);
	if (m.hosts != NULL) {
		struct rwrap_question qu;
		int n;

		if (!rwrap_parse_question(q, qlen, &qu)) {
			errno = EINVAL;
			return -1;
		}
		n = rwrap_hosts_answer(m.hosts, &qu, answer, anslen);
		if (n < 0) {
			errno = EMSGSIZE;
		}
		CWRAP_DEBUG("%s type %u from %s: %d bytes", qu.name, qu.qtype,
			    m.hosts, n);
		return n;
	}
	rwrap_conf_get(m.conf, &c);
	return rwrap_send(&c, c.usevc || (opts & RES_USEVC) != 0,
			  (opts & RES_IGNTC) != 0, q, qlen, answer, anslen);
}

/* res_nquery, also reporting the answer's rcode (-1: none). */
static int rwrap_query(res_state statp, const char *dname, int qclass, int type,
		       unsigned char *answer, int anslen, int *rcode)
{
	uint8_t q[NS_PACKETSZ];
	unsigned long opts = rwrap_options(statp);
	int qlen, n, an;

	*rcode = -1;
	if (dname == NULL || answer == NULL || anslen < 0) {
		rwrap_herrno(statp, NO_RECOVERY);
		errno = EINVAL;
		return -1;
	}
	qlen =
	    rwrap_mkquery(rwrap_random_id(), (opts & RES_RECURSE) != 0, dname,
			  (unsigned)qclass, (unsigned)type, q, sizeof(q));
	if (qlen < 0) {
		CWRAP_DEBUG("'%s' is not a name to ask for", dname);
		rwrap_herrno(statp, NO_RECOVERY);
		errno = EMSGSIZE;
		return -1;
	}
	n = rwrap_exchange(statp, q, (size_t)qlen, answer, (size_t)anslen);
	if (n < 0) {
		rwrap_herrno(statp, TRY_AGAIN);
		return -1;
	}
	if (n < NS_HFIXEDSZ) {
		rwrap_herrno(statp, TRY_AGAIN);
		errno = EMSGSIZE;
		return -1;
	}
	*rcode = answer[3] & 0x0f;
	an = answer[6] << 8 | answer[7];
	if (*rcode != ns_r_noerror || an == 0) {
		switch (*rcode) {
		case ns_r_nxdomain:
			rwrap_herrno(statp, HOST_NOT_FOUND);
			break;
		case ns_r_servfail:
			rwrap_herrno(statp, TRY_AGAIN);
			break;
		case ns_r_noerror:
			rwrap_herrno(statp, NO_DATA);
			break;
		default:
			rwrap_herrno(statp, NO_RECOVERY);
			break;
		}
		return -1;
	}
	return n;
}

int rwrap_res_nquery(res_state statp, const char *dname, int qclass, int type,
		     unsigned char *answer, int anslen)
{
	int rcode;

	return rwrap_query(statp, dname, qclass, type, answer, anslen, &rcode);
}

static int rwrap_querydomain(res_state statp, const char *name,
			     const char *domain, int qclass, int type,
			     unsigned char *answer, int anslen, int *rcode)
{
	char buf[NS_MAXDNAME];
	size_t n;

	*rcode = -1;
	if (name == NULL) {
		rwrap_herrno(statp, NO_RECOVERY);
		return -1;
	}
	n = strlen(name);
	if (domain == NULL) {
		if (n >= sizeof(buf)) {
			rwrap_herrno(statp, NO_RECOVERY);
			return -1;
		}
		memcpy(buf, name, n + 1);
		if (n > 1 && buf[n - 1] == '.') {
			buf[n - 1] = '\0';
		}
	} else if (n + strlen(domain) + 2 > sizeof(buf)) {
		rwrap_herrno(statp, NO_RECOVERY);
		return -1;
	} else {
		size_t d = strlen(domain);

		memcpy(buf, name, n);
		buf[n] = '.';
		memcpy(buf + n + 1, domain, d + 1);
	}
	return rwrap_query(statp, buf, qclass, type, answer, anslen, rcode);
}

int rwrap_res_nquerydomain(res_state statp, const char *name,
			   const char *domain, int qclass, int type,
			   unsigned char *answer, int anslen)
{
	int rcode;

	return rwrap_querydomain(statp, name, domain, qclass, type, answer,
				 anslen, &rcode);
}

int rwrap_res_nsearch(res_state statp, const char *name, int qclass, int type,
		      unsigned char *answer, int anslen)
{
	struct rwrap_mode m;
	struct rwrap_conf c;
	unsigned long opts = rwrap_options(statp);
	int dots = 0, saved = -1, ret, rcode;
	bool trailing, tried = false, searched = false, nodata = false,
		       servfail = false;
	const char *cp;

	if (name == NULL) {
		rwrap_herrno(statp, NO_RECOVERY);
		return -1;
	}
	rwrap_mode(&m);
	rwrap_conf_get(m.conf, &c);
	errno = 0;
	rwrap_herrno(statp, HOST_NOT_FOUND);
	for (cp = name; *cp != '\0'; cp++) {
		dots += *cp == '.';
	}
	trailing = cp > name && cp[-1] == '.';

	if (dots >= c.ndots || trailing) {
		ret = rwrap_querydomain(statp, name, NULL, qclass, type, answer,
					anslen, &rcode);
		if (ret > 0 || trailing) {
			return ret;
		}
		saved = h_errno;
		tried = true;
	}
	if ((dots == 0 && (opts & RES_DEFNAMES) != 0) ||
	    (dots > 0 && !trailing && (opts & RES_DNSRCH) != 0)) {
		for (int i = 0; i < c.nsearch; i++) {
			bool done = false;

			searched = true;
			ret =
			    rwrap_querydomain(statp, name, c.search[i], qclass,
					      type, answer, anslen, &rcode);
			if (ret > 0) {
				return ret;
			}
			if (errno == ECONNREFUSED) {
				rwrap_herrno(statp, TRY_AGAIN);
				return -1;
			}
			switch (h_errno) {
			case NO_DATA:
				nodata = true;
				break;
			case HOST_NOT_FOUND:
				break;
			case TRY_AGAIN:
				if (rcode == ns_r_servfail) {
					servfail = true;
					break;
				}
				done = true;
				break;
			default:
				done = true;
				break;
			}
			if (done || (opts & RES_DNSRCH) == 0) {
				break;
			}
		}
	}
	if ((dots > 0 || !searched || (opts & RES_NOTLDQUERY) == 0) && !tried) {
		ret = rwrap_querydomain(statp, name, NULL, qclass, type, answer,
					anslen, &rcode);
		if (ret > 0) {
			return ret;
		}
	}
	if (saved != -1) {
		rwrap_herrno(statp, saved);
	} else if (nodata) {
		rwrap_herrno(statp, NO_DATA);
	} else if (servfail) {
		rwrap_herrno(statp, TRY_AGAIN);
	}
	return -1;
}

int rwrap_res_nsend(res_state statp, const unsigned char *msg, int msglen,
		    unsigned char *answer, int anslen)
{
	if (msg == NULL || answer == NULL || msglen < NS_HFIXEDSZ ||
	    anslen < NS_HFIXEDSZ) {
		errno = EINVAL;
		return -1;
	}
	return rwrap_exchange(statp, msg, (size_t)msglen, answer,
			      (size_t)anslen);
}

/* Our configuration written into a state libc initialised. Returns the
 * errno of a RESOLV_WRAPPER_CONF that cannot be read (which gives no
 * nameserver), 0 otherwise. */
static int rwrap_apply(res_state statp)
{
	struct rwrap_mode m;
	struct rwrap_conf c;
	size_t off = 0;
	int i, n = 0, err;

	rwrap_mode(&m);
	err = rwrap_conf_get(m.conf, &c);
	if (m.conf != NULL) {
		for (i = 0; i < statp->nscount && i < MAXNS; i++) {
			free(statp->_u._ext.nsaddrs[i]);
			statp->_u._ext.nsaddrs[i] = NULL;
		}
		for (i = 0; i < c.nns && i < MAXNS; i++) {
			statp->_u._ext.nssocks[i] = -1;
			if (c.ns[i].ss_family == AF_INET) {
				memcpy(&statp->nsaddr_list[i], &c.ns[i],
				       sizeof(struct sockaddr_in));
				continue;
			}
			statp->nsaddr_list[i].sin_family = AF_UNSPEC;
			statp->_u._ext.nsaddrs[i] =
			    malloc(sizeof(struct sockaddr_in6));
			if (statp->_u._ext.nsaddrs[i] != NULL) {
				memcpy(statp->_u._ext.nsaddrs[i], &c.ns[i],
				       sizeof(struct sockaddr_in6));
			}
		}
		if (i == 0) {
			/* glibc takes a state without nameservers for one it
			 * never initialised, and then never releases what it
			 * attached to it (lost at the next res_init or at
			 * exit): the state shows what glibc puts for a
			 * resolv.conf without nameserver lines, 127.0.0.1.
			 * Our queries still ask no server. */
			struct sockaddr_in lo = {
			    .sin_family = AF_INET,
			    .sin_port = htons(53),
			    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

			statp->_u._ext.nssocks[0] = -1;
			memcpy(&statp->nsaddr_list[0], &lo, sizeof(lo));
			i = 1;
		}
		statp->nscount = i;
	}
	/* the search list, in defdname as libc keeps it */
	for (i = 0; i < c.nsearch && n < MAXDNSRCH; i++) {
		size_t len = strlen(c.search[i]) + 1;

		if (off + len > sizeof(statp->defdname)) {
			break;
		}
		memcpy(statp->defdname + off, c.search[i], len);
		statp->dnsrch[n++] = statp->defdname + off;
		off += len;
	}
	statp->dnsrch[n] = NULL;
	if (n == 0) {
		statp->defdname[0] = '\0';
	}
	statp->ndots = (unsigned)c.ndots;
	statp->retrans = c.timeout;
	statp->retry = c.attempts;
	if (c.rotate) {
		statp->options |= RES_ROTATE;
	}
	if (c.usevc) {
		statp->options |= RES_USEVC;
	}
	if (c.edns0) {
		statp->options |= RES_USE_EDNS0;
	}
	return err;
}

/* res_init()'s result: as upstream's, -1 with the errno of a
 * RESOLV_WRAPPER_CONF that cannot be read (glibc's own res_init takes a
 * missing or unreadable /etc/resolv.conf as empty and returns 0; a test's
 * file that cannot be read is a mistake worth failing on). */
static int rwrap_init_result(res_state statp)
{
	int err = rwrap_apply(statp);

	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

#ifdef HAVE___RES_NINIT
int rwrap_res_ninit(res_state statp)
{
	int rc;

	pthread_mutex_lock(&rwrap_libc_lock);
	rc = libc___res_ninit(statp);
	pthread_mutex_unlock(&rwrap_libc_lock);
	if (rc == 0) {
		rc = rwrap_init_result(statp);
	}
	return rc;
}
#endif

int rwrap_res_init(void)
{
	int rc;

	pthread_mutex_lock(&rwrap_libc_lock);
	rc = rwrap_libc_res_init();
	pthread_mutex_unlock(&rwrap_libc_lock);
	if (rc == 0 && (_res.options & RES_INIT) == 0) {
		/* A C library whose resolver keeps no state (musl): _res
		 * starts as resolv.conf's defaults would make it. */
		_res.options = RES_DEFAULT | RES_INIT;
		_res.retrans = RES_TIMEOUT;
		_res.retry = RES_DFLRETRY;
		_res.ndots = 1;
	}
	if (rc == 0) {
		rc = rwrap_init_result(&_res);
	}
	return rc;
}

#ifdef HAVE___RES_NINIT
void rwrap_res_nclose(res_state statp)
{
	pthread_mutex_lock(&rwrap_libc_lock);
	libc___res_nclose(statp);
	pthread_mutex_unlock(&rwrap_libc_lock);
}
#endif

res_state rwrap_res_default(void)
{
	if ((_res.options & RES_INIT) == 0) {
		rwrap_res_init();
	}
	return &_res;
}
