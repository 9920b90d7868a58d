/*
 * The exported resolver names, both the ones programs call and the __res_
 * spellings glibc's <resolv.h> turned them into (and binaries built
 * against older glibc still reference): each decides "is this wrapped?"
 * (RESOLV_WRAPPER_HOSTS or RESOLV_WRAPPER_CONF set now) and calls the
 * logic or libc's function. The calls without a state use the thread's
 * _res, as libc's do. No state, no locks. Keep it thin.
 */
#include "rwrap.h"
#include "rwrap_libc.h"

/* __res_NAME: the same function under glibc's other spelling (with the
 * attributes <resolv.h> gives it, where the compiler can copy them). */
#if defined(__has_attribute) && __has_attribute(__copy__)
#define RWRAP_COPY(name) __copy__(name),
#else
#define RWRAP_COPY(name)
#endif
#ifdef HAVE___RES_INIT
#define RWRAP_ALIAS(name)                                                      \
	extern __typeof(name) __##name __attribute__((                         \
	    RWRAP_COPY(name) alias(#name), visibility("default")));
#else
#define RWRAP_ALIAS(name) /* no __res_ spellings in this C library */
#endif

CWRAP_EXPORT int res_init(void);

int res_init(void)
{
	if (!rwrap_enabled()) {
		return rwrap_libc_res_init();
	}
	return rwrap_res_init();
}

RWRAP_ALIAS(res_init)

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT int res_ninit(res_state statp);

int res_ninit(res_state statp)
{
	if (!rwrap_enabled()) {
		return libc___res_ninit(statp);
	}
	return rwrap_res_ninit(statp);
}

RWRAP_ALIAS(res_ninit)
#endif

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT void res_close(void);

void res_close(void)
{
	/* nothing of ours to close: libc's state alone, wrapped or not */
	libc_res_close();
}

RWRAP_ALIAS(res_close)
#endif

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT void res_nclose(res_state statp);

void res_nclose(res_state statp)
{
	if (!rwrap_enabled()) {
		libc___res_nclose(statp);
		return;
	}
	rwrap_res_nclose(statp);
}

RWRAP_ALIAS(res_nclose)
#endif

CWRAP_EXPORT int res_query(const char *dname, int qclass, int type,
			   unsigned char *answer, int anslen);

int res_query(const char *dname, int qclass, int type, unsigned char *answer,
	      int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_query(dname, qclass, type, answer, anslen);
	}
	return rwrap_res_nquery(rwrap_res_default(), dname, qclass, type,
				answer, anslen);
}

RWRAP_ALIAS(res_query)

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT int res_nquery(res_state statp, const char *dname, int qclass,
			    int type, unsigned char *answer, int anslen);

int res_nquery(res_state statp, const char *dname, int qclass, int type,
	       unsigned char *answer, int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_nquery(statp, dname, qclass, type, answer,
				       anslen);
	}
	return rwrap_res_nquery(statp, dname, qclass, type, answer, anslen);
}

RWRAP_ALIAS(res_nquery)
#endif

CWRAP_EXPORT int res_search(const char *dname, int qclass, int type,
			    unsigned char *answer, int anslen);

int res_search(const char *dname, int qclass, int type, unsigned char *answer,
	       int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_search(dname, qclass, type, answer, anslen);
	}
	return rwrap_res_nsearch(rwrap_res_default(), dname, qclass, type,
				 answer, anslen);
}

RWRAP_ALIAS(res_search)

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT int res_nsearch(res_state statp, const char *dname, int qclass,
			     int type, unsigned char *answer, int anslen);

int res_nsearch(res_state statp, const char *dname, int qclass, int type,
		unsigned char *answer, int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_nsearch(statp, dname, qclass, type, answer,
					anslen);
	}
	return rwrap_res_nsearch(statp, dname, qclass, type, answer, anslen);
}

RWRAP_ALIAS(res_nsearch)
#endif

CWRAP_EXPORT int res_querydomain(const char *name, const char *domain,
				 int qclass, int type, unsigned char *answer,
				 int anslen);

int res_querydomain(const char *name, const char *domain, int qclass, int type,
		    unsigned char *answer, int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_querydomain(name, domain, qclass, type, answer,
					    anslen);
	}
	return rwrap_res_nquerydomain(rwrap_res_default(), name, domain, qclass,
				      type, answer, anslen);
}

RWRAP_ALIAS(res_querydomain)

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT int res_nquerydomain(res_state statp, const char *name,
				  const char *domain, int qclass, int type,
				  unsigned char *answer, int anslen);

int res_nquerydomain(res_state statp, const char *name, const char *domain,
		     int qclass, int type, unsigned char *answer, int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_nquerydomain(statp, name, domain, qclass, type,
					     answer, anslen);
	}
	return rwrap_res_nquerydomain(statp, name, domain, qclass, type, answer,
				      anslen);
}

RWRAP_ALIAS(res_nquerydomain)
#endif

CWRAP_EXPORT int res_send(const unsigned char *msg, int msglen,
			  unsigned char *answer, int anslen);

int res_send(const unsigned char *msg, int msglen, unsigned char *answer,
	     int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_send(msg, msglen, answer, anslen);
	}
	return rwrap_res_nsend(rwrap_res_default(), msg, msglen, answer,
			       anslen);
}

RWRAP_ALIAS(res_send)

#ifdef HAVE___RES_NINIT
CWRAP_EXPORT int res_nsend(res_state statp, const unsigned char *msg,
			   int msglen, unsigned char *answer, int anslen);

int res_nsend(res_state statp, const unsigned char *msg, int msglen,
	      unsigned char *answer, int anslen)
{
	if (!rwrap_enabled()) {
		return libc_res_nsend(statp, msg, msglen, answer, anslen);
	}
	return rwrap_res_nsend(statp, msg, msglen, answer, anslen);
}

RWRAP_ALIAS(res_nsend)
#endif
