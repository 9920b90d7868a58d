/*
 * getaddrinfo, freeaddrinfo and getnameinfo over NSS_WRAPPER_HOSTS.
 *
 * Names come from the hosts cache (its lock is held only while the
 * addresses are collected). Numeric addresses, a NULL node and families
 * other than IPv4/IPv6 go to the real libc. Results are allocated exactly
 * as glibc does, so glibc's freeaddrinfo can free them node by node and
 * ours can free glibc's: each node is one malloc block holding the
 * addrinfo followed by its sockaddr, ai_canonname a separate malloc.
 *
 * Socket types: with no type and no protocol asked, each address comes as
 * a DGRAM/UDP node then a STREAM/TCP node, as upstream nss_wrapper answers
 * (and as the article's `getent ahostsv6` output shows); glibc would add a
 * RAW node. AI_CANONNAME puts the canonical name on every node, also as
 * upstream does. AI_ADDRCONFIG is accepted but filters nothing: the
 * addresses in the hosts file are usually socket_wrapper's, which exist
 * for every family.
 */
#include "nwrap_backend.h"
#include "nwrap_libc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#define NWRAP_AI_FLAGS                                                         \
	(AI_PASSIVE | AI_CANONNAME | AI_NUMERICHOST | AI_V4MAPPED | AI_ALL |   \
	 AI_ADDRCONFIG | AI_NUMERICSERV | AI_IDN | AI_CANONIDN)

struct nwrap_combo {
	int socktype;
	int protocol;
	uint16_t port; /* network order */
};

static const struct {
	int socktype;
	int protocol;
	const char *proto;
} nwrap_socks[] = {
    {SOCK_DGRAM, IPPROTO_UDP, "udp"},
    {SOCK_STREAM, IPPROTO_TCP, "tcp"},
    {SOCK_RAW, 0, NULL},
};

static bool nwrap_numeric_port(const char *s, uint16_t *port)
{
	char *end = NULL;
	unsigned long v;

	if (*s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > 65535) {
		return false;
	}
	*port = htons((uint16_t)v);
	return true;
}

/* The (socktype, protocol, port) nodes each address gets; EAI_* on error. */
static int nwrap_ai_combos(const char *service, const struct addrinfo *h,
			   struct nwrap_combo *out, size_t *n)
{
	uint16_t nport = 0;
	bool numeric = service == NULL || nwrap_numeric_port(service, &nport);
	bool any = false;

	if (!numeric && (h->ai_flags & AI_NUMERICSERV)) {
		return EAI_NONAME;
	}
	*n = 0;
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(nwrap_socks); i++) {
		int st = nwrap_socks[i].socktype;
		struct servent se, *sres = NULL;
		char sbuf[1024];

		if (h->ai_socktype != 0 ? h->ai_socktype != st
					: st == SOCK_RAW) {
			continue;
		}
		if (h->ai_protocol != 0 && st != SOCK_RAW &&
		    h->ai_protocol != nwrap_socks[i].protocol) {
			continue;
		}
		any = true;
		out[*n].socktype = st;
		out[*n].protocol =
		    st == SOCK_RAW ? h->ai_protocol : nwrap_socks[i].protocol;
		out[*n].port = nport;
		if (!numeric) {
			if (st == SOCK_RAW ||
			    getservbyname_r(service, nwrap_socks[i].proto, &se,
					    sbuf, sizeof(sbuf), &sres) != 0 ||
			    sres == NULL) {
				continue;
			}
			out[*n].port = (uint16_t)sres->s_port;
		}
		(*n)++;
	}
	if (*n == 0) {
		return (any || h->ai_socktype == 0) ? EAI_SERVICE
						    : EAI_SOCKTYPE;
	}
	return 0;
}

struct nwrap_ai_addr {
	int family;
	unsigned char addr[16];
};

/* The addresses collected for one name. */
struct nwrap_ai_list {
	struct nwrap_ai_addr *v;
	size_t n;
	size_t cap;
	size_t n6;   /* IPv6 addresses among them */
	char *canon; /* malloc'd, when AI_CANONNAME */
};

/* Append an address of `family` (IPv4 as a mapped IPv6 one when `map`),
 * and the canonical name if it is the first; EAI_MEMORY or 0. */
static int nwrap_ai_push(struct nwrap_ai_list *l, const struct addrinfo *h,
			 int family, const void *addr, bool map,
			 const char *canon)
{
	struct nwrap_ai_addr *a;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;

		a = realloc(l->v, cap * sizeof(*a));
		if (a == NULL) {
			return EAI_MEMORY;
		}
		l->v = a;
		l->cap = cap;
	}
	a = &l->v[l->n++];
	memset(a, 0, sizeof(*a));
	a->family = family;
	if (map) {
		a->family = AF_INET6;
		a->addr[10] = a->addr[11] = 0xff;
		memcpy(a->addr + 12, addr, 4);
	} else {
		memcpy(a->addr, addr, family == AF_INET6 ? 16 : 4);
		l->n6 += family == AF_INET6;
	}
	if (l->canon == NULL && (h->ai_flags & AI_CANONNAME)) {
		l->canon = strdup(canon);
		if (l->canon == NULL) {
			return EAI_MEMORY;
		}
	}
	return 0;
}

/* Which passes to make: IPv6 (or every family), then IPv4 lines as mapped
 * addresses when AF_INET6 asks for them. */
static bool nwrap_ai_want(const struct addrinfo *h,
			  const struct nwrap_ai_list *l, int pass, int family)
{
	bool mapped = h->ai_family == AF_INET6 && (h->ai_flags & AI_V4MAPPED);

	if (pass == 0) {
		return h->ai_family == AF_UNSPEC || family == h->ai_family;
	}
	return mapped && (l->n6 == 0 || (h->ai_flags & AI_ALL)) &&
	       family == AF_INET;
}

/* The module's answer for `name` (its gethostbyname2_r), if it has one. */
static int nwrap_ai_module(const char *name, const struct addrinfo *h,
			   struct nwrap_ai_list *l)
{
	static const int fams[2] = {AF_INET6, AF_INET};
	size_t blen = 1024;
	char *buf = NULL;
	int rc = 0;

	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (int f = 0; f < 2 && rc == 0; f++) {
			struct hostent he;
			int mrc;

			if (!nwrap_ai_want(h, l, pass, fams[f])) {
				continue;
			}
			do {
				char *p = realloc(buf, blen);

				if (p == NULL) {
					free(buf);
					return EAI_MEMORY;
				}
				buf = p;
				mrc = nwrap_module_gethostbyname2_r(
				    name, fams[f], &he, buf, blen);
				blen *= 2;
			} while (mrc == ERANGE && blen <= (1u << 22));
			if (mrc != 0 || he.h_addrtype != fams[f]) {
				continue;
			}
			for (char **a = he.h_addr_list; *a != NULL && rc == 0;
			     a++) {
				rc = nwrap_ai_push(l, h, fams[f], *a, pass == 1,
						   he.h_name);
			}
		}
	}
	free(buf);
	return rc;
}

/* Addresses of `name` for the hints' family: the module's if it knows the
 * name, else the file's, in file order; EAI_* on error. */
static int nwrap_ai_lookup(const char *name, const struct addrinfo *h,
			   struct nwrap_ai_list *l)
{
	const struct nwrap_db *db;
	struct nwrap_index_it it;
	int rc = 0;

	if (nwrap_config()->module_enabled) {
		rc = nwrap_ai_module(name, h, l);
		if (rc != 0 || l->n > 0) {
			return rc;
		}
	}
	db = nwrap_cache_acquire(&nwrap_cache_hosts);
	for (int pass = 0; db != NULL && pass < 2 && rc == 0; pass++) {
		for (uint32_t i = nwrap_db_host_first(db, name, &it);
		     i != NWRAP_NONE && rc == 0;
		     i = nwrap_db_host_next(db, name, &it)) {
			const struct nwrap_hrec *e = &db->rec.h[i];

			if (nwrap_ai_want(h, l, pass, e->family)) {
				rc = nwrap_ai_push(l, h, e->family, e->addr,
						   pass == 1,
						   db->text + e->names);
			}
		}
	}
	nwrap_cache_release(&nwrap_cache_hosts);
	return rc == 0 && l->n == 0 ? EAI_NONAME : rc;
}

static struct addrinfo *nwrap_ai_node(const struct nwrap_ai_addr *a,
				      const struct nwrap_combo *c, int flags,
				      const char *canon)
{
	socklen_t sl = a->family == AF_INET6 ? sizeof(struct sockaddr_in6)
					     : sizeof(struct sockaddr_in);
	struct addrinfo *ai = calloc(1, sizeof(*ai) + sl);

	if (ai == NULL) {
		return NULL;
	}
	ai->ai_flags = flags;
	ai->ai_family = a->family;
	ai->ai_socktype = c->socktype;
	ai->ai_protocol = c->protocol;
	ai->ai_addrlen = sl;
	ai->ai_addr = (struct sockaddr *)(void *)(ai + 1);
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 =
		    (struct sockaddr_in6 *)(void *)(ai + 1);

		s6->sin6_family = AF_INET6;
		s6->sin6_port = c->port;
		memcpy(&s6->sin6_addr, a->addr, 16);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)(void *)(ai + 1);

		s4->sin_family = AF_INET;
		s4->sin_port = c->port;
		memcpy(&s4->sin_addr, a->addr, 4);
	}
	if (canon != NULL) {
		ai->ai_canonname = strdup(canon);
		if (ai->ai_canonname == NULL) {
			free(ai);
			return NULL;
		}
	}
	return ai;
}

static bool nwrap_is_numeric(const char *node)
{
	struct in_addr a4;
	struct in6_addr a6;
	const char *p = node;

	/* most names have a letter no numeric form (inet_aton's hex, IPv6,
	 * a scope) can contain: skip the parsers for them */
	if (strchr(node, '%') != NULL) {
		return true; /* maybe an IPv6 address with a scope */
	}
	for (; *p != '\0'; p++) {
		if (!strchr("0123456789abcdefABCDEFxX.:", *p)) {
			return false;
		}
	}
	return inet_aton(node, &a4) != 0 || inet_pton(AF_INET6, node, &a6) == 1;
}

int nwrap_getaddrinfo(const char *node, const char *service,
		      const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo h = {.ai_family = AF_UNSPEC,
			     .ai_flags = AI_V4MAPPED | AI_ADDRCONFIG};
	struct nwrap_combo combos[CWRAP_ARRAY_SIZE(nwrap_socks)];
	struct nwrap_ai_list list = {0};
	struct addrinfo *head = NULL, **tail = &head;
	size_t ncombo = 0;
	int rc;

	if (hints != NULL) {
		h.ai_flags = hints->ai_flags;
		h.ai_family = hints->ai_family;
		h.ai_socktype = hints->ai_socktype;
		h.ai_protocol = hints->ai_protocol;
	}
	if (node == NULL) {
		/* no name to look up; AI_ADDRCONFIG as documented above */
		h.ai_flags &= ~AI_ADDRCONFIG;
		return libc_getaddrinfo(node, service, &h, res);
	}
	if (nwrap_is_numeric(node)) {
		/* never a name lookup by the real libc */
		struct addrinfo nh = h;

		nh.ai_flags = (h.ai_flags & ~AI_ADDRCONFIG) | AI_NUMERICHOST;
		rc = libc_getaddrinfo(node, service, &nh, res);
		if (rc != EAI_NONAME) {
			return rc;
		}
	}
	if (h.ai_flags & ~NWRAP_AI_FLAGS) {
		return EAI_BADFLAGS;
	}
	if (h.ai_family != AF_UNSPEC && h.ai_family != AF_INET &&
	    h.ai_family != AF_INET6) {
		return EAI_FAMILY;
	}
	if (h.ai_socktype != 0 && h.ai_socktype != SOCK_STREAM &&
	    h.ai_socktype != SOCK_DGRAM && h.ai_socktype != SOCK_RAW) {
		return EAI_SOCKTYPE;
	}
	if (h.ai_flags & AI_NUMERICHOST) {
		return EAI_NONAME;
	}
	rc = nwrap_ai_combos(service, &h, combos, &ncombo);
	if (rc != 0) {
		return rc;
	}
	rc = nwrap_ai_lookup(node, &h, &list);
	for (size_t i = 0; rc == 0 && i < list.n; i++) {
		for (size_t j = 0; j < ncombo; j++) {
			*tail = nwrap_ai_node(&list.v[i], &combos[j],
					      h.ai_flags, list.canon);
			if (*tail == NULL) {
				rc = EAI_MEMORY;
				break;
			}
			tail = &(*tail)->ai_next;
		}
	}
	free(list.v);
	free(list.canon);
	if (rc != 0) {
		nwrap_freeaddrinfo(head);
		return rc;
	}
	*res = head;
	return 0;
}

/* Exactly glibc's freeaddrinfo: safe for its results and ours. */
void nwrap_freeaddrinfo(struct addrinfo *ai)
{
	while (ai != NULL) {
		struct addrinfo *next = ai->ai_next;

		free(ai->ai_canonname);
		free(ai);
		ai = next;
	}
}

/* `name` (without its domain with NI_NOFQDN) into host; 0 or EAI_OVERFLOW. */
static int nwrap_ni_name(const char *name, char *host, socklen_t hostlen,
			 int flags)
{
	const char *dot = (flags & NI_NOFQDN) ? strchr(name, '.') : NULL;
	size_t n = dot != NULL ? (size_t)(dot - name) : strlen(name);

	if (n + 1 > hostlen) {
		return EAI_OVERFLOW;
	}
	memcpy(host, name, n);
	host[n] = '\0';
	return 0;
}

/* The module's name for the address; 0, EAI_OVERFLOW or EAI_NONAME. */
static int nwrap_ni_module(int family, const unsigned char *addr, char *host,
			   socklen_t hostlen, int flags)
{
	struct hostent he;
	char buf[4096];

	if (!nwrap_config()->module_enabled ||
	    nwrap_module_gethostbyaddr_r(addr, family == AF_INET6 ? 16 : 4,
					 family, &he, buf, sizeof(buf)) != 0) {
		return EAI_NONAME;
	}
	return nwrap_ni_name(he.h_name, host, hostlen, flags);
}

int nwrap_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
		      socklen_t hostlen, char *serv, socklen_t servlen,
		      int flags)
{
	const struct nwrap_db *db;
	unsigned char addr[16];
	int family;
	uint32_t i = NWRAP_NONE;
	int rc;

	if (sa == NULL || salen < (socklen_t)sizeof(sa_family_t)) {
		return EAI_FAMILY;
	}
	family = sa->sa_family;
	if ((family != AF_INET && family != AF_INET6) || host == NULL ||
	    hostlen == 0 || (flags & NI_NUMERICHOST)) {
		return libc_getnameinfo(sa, salen, host, hostlen, serv, servlen,
					flags);
	}
	if (family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		if (salen < (socklen_t)sizeof(struct sockaddr_in)) {
			return EAI_FAMILY;
		}
		memcpy(addr, &s4->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		if (salen < (socklen_t)sizeof(struct sockaddr_in6)) {
			return EAI_FAMILY;
		}
		memcpy(addr, &s6->sin6_addr, 16);
	}

	rc = nwrap_ni_module(family, addr, host, hostlen, flags);
	if (rc == EAI_NONAME) {
		db = nwrap_cache_acquire(&nwrap_cache_hosts);
		if (db != NULL) {
			i = nwrap_db_host_by_addr(db, family, addr);
			if (i == NWRAP_NONE && family == AF_INET6 &&
			    IN6_IS_ADDR_V4MAPPED((const void *)addr)) {
				i = nwrap_db_host_by_addr(db, AF_INET,
							  addr + 12);
			}
		}
		if (i != NWRAP_NONE) {
			rc = nwrap_ni_name(db->text + db->rec.h[i].names, host,
					   hostlen, flags);
		}
		nwrap_cache_release(&nwrap_cache_hosts);
	}
	if (rc == EAI_NONAME) {
		if (flags & NI_NAMEREQD) {
			return EAI_NONAME;
		}
		return libc_getnameinfo(sa, salen, host, hostlen, serv, servlen,
					flags | NI_NUMERICHOST);
	}
	if (rc == 0 && serv != NULL && servlen > 0) {
		rc = libc_getnameinfo(sa, salen, NULL, 0, serv, servlen,
				      flags & ~NI_NAMEREQD);
	}
	return rc;
}
