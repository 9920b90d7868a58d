/*
 * getaddrinfo and freeaddrinfo while NSS_WRAPPER_HOSTS is set (getnameinfo
 * is nwrap_nameinfo.c).
 *
 * Hermetic: nothing here makes a socket or asks a server. A NULL node and
 * numeric hosts (inet_aton's IPv4 forms, IPv6 with a numeric or named
 * scope) are answered here as glibc answers them, with glibc's socket
 * type and protocol combinations (its table: tcp, udp, dccp, udplite,
 * sctp, raw) and errors; services come from /etc/services, read through
 * our own cache (glibc would ask nscd first). AI_ADDRCONFIG filters
 * nothing: no interface is probed, and socket_wrapper's addresses exist
 * for both families. Names are looked up in the file, then (for a name
 * the file lacks in every family) in the module; names in neither go to the
 * real libc, as upstream sends them, unless NSS_WRAPPER_HOSTS_ONLY=1
 * (EAI_NONAME). The file's addresses of a name are glibc's files module's:
 * every line's, in file order, repeats kept; an IPv4-mapped line is IPv4 to
 * AF_INET.
 *
 * Names from the file keep upstream's shape: with no type asked, each
 * address comes as a DGRAM/UDP node then a STREAM/TCP node (as the
 * article's `getent ahostsv6` output shows; glibc would add a RAW node).
 * ai_canonname is set with AI_CANONNAME only (as glibc), on every node of
 * a name from the file (as upstream) and on the first of a numeric host.
 * Results are allocated as glibc does, so either freeaddrinfo frees them:
 * each node is one malloc block holding the addrinfo followed by its
 * sockaddr, ai_canonname a separate malloc. Locks: the hosts and services
 * caches, each held only while read.
 */
#include "cwrap_platform.h"
#include "nwrap_backend.h"
#include "nwrap_libc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif
#ifndef SOCK_DCCP
#define SOCK_DCCP 6
#endif

#define NWRAP_AI_FLAGS                                                         \
	(AI_PASSIVE | AI_CANONNAME | AI_NUMERICHOST | AI_V4MAPPED | AI_ALL |   \
	 AI_ADDRCONFIG | AI_NUMERICSERV | AI_IDN | AI_CANONIDN)

struct nwrap_combo {
	int socktype;
	int protocol;
	uint16_t port; /* network order */
};

/* glibc's table of socket types and protocols, in its order. */
#define NWRAP_P_DEFAULT 1 /* given when no type and no protocol are asked */
#define NWRAP_P_NOSERV 2  /* takes no service */
#define NWRAP_P_ANY 4	  /* any protocol (raw) */
static const struct nwrap_proto {
	int socktype;
	int protocol;
	const char *name;
	int flags;
} nwrap_protos[] = {
    {SOCK_STREAM, IPPROTO_TCP, "tcp", NWRAP_P_DEFAULT},
    {SOCK_DGRAM, IPPROTO_UDP, "udp", NWRAP_P_DEFAULT},
    {SOCK_DCCP, IPPROTO_DCCP, "dccp", 0},
    {SOCK_DGRAM, IPPROTO_UDPLITE, "udplite", 0},
    {SOCK_STREAM, IPPROTO_SCTP, "sctp", 0},
    {SOCK_SEQPACKET, IPPROTO_SCTP, "sctp", 0},
    {SOCK_RAW, 0, "raw", NWRAP_P_DEFAULT | NWRAP_P_NOSERV | NWRAP_P_ANY},
};

#define NWRAP_COMBO_MAX CWRAP_ARRAY_SIZE(nwrap_protos)

static bool nwrap_proto_match(const struct nwrap_proto *p,
			      const struct addrinfo *h)
{
	return (h->ai_socktype == 0 || h->ai_socktype == p->socktype) &&
	       (h->ai_protocol == 0 || (p->flags & NWRAP_P_ANY) ||
		h->ai_protocol == p->protocol);
}

/* The service as glibc reads it: NULL or "" is none (*num = -2), a whole
 * decimal number is a port (truncated to 16 bits as glibc does; negative
 * as an int is EAI_SERVICE), anything else a name (*num = -1). */
static int nwrap_serv_parse(const char *service, int flags, int *num)
{
	char *end = NULL;
	int v;

	if (service == NULL || *service == '\0') {
		*num = -2;
		return 0;
	}
	v = (int)strtoul(service, &end, 10);
	if (*end != '\0') {
		*num = -1;
		return (flags & AI_NUMERICSERV) ? EAI_NONAME : 0;
	}
	if (v < 0) {
		return EAI_SERVICE;
	}
	*num = v;
	return 0;
}

/* Port of service `name` for protocol `proto`, network order; -1 if the
 * services file does not list it. */
static int nwrap_serv_port(const struct nwrap_db *db, const char *name,
			   const char *proto)
{
	uint32_t i =
	    db == NULL ? NWRAP_NONE : nwrap_db_service(db, name, proto);

	return i == NWRAP_NONE ? -1 : htons((uint16_t)db->rec.sv[i].port);
}

/* The combinations glibc returns for numeric and NULL hosts. */
static int nwrap_combos_glibc(const char *service, const struct addrinfo *h,
			      struct nwrap_combo *out, size_t *n)
{
	const struct nwrap_proto *first = NULL;
	bool all = h->ai_socktype == 0 && h->ai_protocol == 0;
	const struct nwrap_db *db;
	int num, rc;

	*n = 0;
	/* as glibc: a name with AI_NUMERICSERV first, then the type */
	rc = nwrap_serv_parse(service, h->ai_flags, &num);
	if (rc == EAI_NONAME) {
		return rc;
	}
	for (size_t i = 0; i < NWRAP_COMBO_MAX && first == NULL; i++) {
		if (nwrap_proto_match(&nwrap_protos[i], h)) {
			first = &nwrap_protos[i];
		}
	}
	if (first == NULL) {
		return EAI_SOCKTYPE;
	}
	if (rc != 0) {
		return rc;
	}
	if (num != -1) {
		uint16_t port = num >= 0 ? htons((uint16_t)num) : 0;

		if (!all) {
			if (num >= 0 && (first->flags & NWRAP_P_NOSERV)) {
				return EAI_SERVICE;
			}
			out[(*n)++] = (struct nwrap_combo){
			    first->socktype,
			    (first->flags & NWRAP_P_ANY) ? h->ai_protocol
							 : first->protocol,
			    port};
			return 0;
		}
		for (size_t i = 0; i < NWRAP_COMBO_MAX; i++) {
			const struct nwrap_proto *p = &nwrap_protos[i];

			if (p->flags & NWRAP_P_DEFAULT) {
				out[(*n)++] = (struct nwrap_combo){
				    p->socktype, p->protocol, port};
			}
		}
		return 0;
	}
	db = nwrap_cache_acquire(&nwrap_cache_services);
	for (size_t i = 0; i < NWRAP_COMBO_MAX; i++) {
		const struct nwrap_proto *p = &nwrap_protos[i];
		int port;

		if ((p->flags & NWRAP_P_NOSERV) ||
		    (all ? !(p->flags & NWRAP_P_DEFAULT)
			 : !nwrap_proto_match(p, h))) {
			continue;
		}
		port = nwrap_serv_port(db, service, p->name);
		if (port >= 0) {
			out[(*n)++] = (struct nwrap_combo){
			    p->socktype, p->protocol, (uint16_t)port};
		}
	}
	nwrap_cache_release(&nwrap_cache_services);
	return *n == 0 ? EAI_SERVICE : 0;
}

/* The combinations for names from the hosts file: upstream's DGRAM/UDP then
 * STREAM/TCP, RAW only when asked for. */
static int nwrap_combos_names(const char *service, const struct addrinfo *h,
			      struct nwrap_combo *out, size_t *n)
{
	static const struct nwrap_proto socks[] = {
	    {SOCK_DGRAM, IPPROTO_UDP, "udp", 0},
	    {SOCK_STREAM, IPPROTO_TCP, "tcp", 0},
	    {SOCK_RAW, 0, NULL, 0},
	};
	const struct nwrap_db *db = NULL;
	bool any = false;
	int num, rc = nwrap_serv_parse(service, h->ai_flags, &num);

	*n = 0;
	if (rc != 0) {
		return rc;
	}
	if (num == -1) {
		db = nwrap_cache_acquire(&nwrap_cache_services);
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(socks); i++) {
		int st = socks[i].socktype,
		    port = num >= 0 ? htons((uint16_t)num) : 0;

		if (h->ai_socktype != 0 ? h->ai_socktype != st
					: st == SOCK_RAW) {
			continue;
		}
		if (h->ai_protocol != 0 && st != SOCK_RAW &&
		    h->ai_protocol != socks[i].protocol) {
			continue;
		}
		any = true;
		if (num == -1) {
			port = st == SOCK_RAW ? -1
					      : nwrap_serv_port(db, service,
								socks[i].name);
			if (port < 0) {
				continue;
			}
		}
		out[(*n)++] = (struct nwrap_combo){
		    st, st == SOCK_RAW ? h->ai_protocol : socks[i].protocol,
		    (uint16_t)port};
	}
	if (num == -1) {
		nwrap_cache_release(&nwrap_cache_services);
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
	uint32_t scope;
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
				    nwrap_config()->module, name, fams[f], &he,
				    buf, blen);
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

/* The file has the name, but no address of the family asked for. */
#define NWRAP_EAI_KNOWN 1

/* Addresses of `name` for the hints' family from the file, in file order;
 * EAI_* on error, EAI_NONAME when it lacks the name, NWRAP_EAI_KNOWN when
 * it has it in another family only. */
static int nwrap_ai_file(const char *name, const struct addrinfo *h,
			 struct nwrap_ai_list *l)
{
	const struct nwrap_db *db;
	struct nwrap_index_it it;
	int rc = 0;

	db = nwrap_cache_acquire(&nwrap_cache_hosts);
	for (int pass = 0; db != NULL && pass < 2 && rc == 0; pass++) {
		for (uint32_t i = nwrap_db_host_first(db, name, &it);
		     i != NWRAP_NONE && rc == 0;
		     i = nwrap_db_host_next(db, name, &it)) {
			const struct nwrap_hrec *e = &db->rec.h[i];
			unsigned char a[16];
			int fam = e->family;

			/* as glibc: an IPv4-mapped line is IPv4 to AF_INET */
			if (h->ai_family == AF_INET || pass == 1) {
				fam = AF_INET;
				if (!nwrap_host_as(e, AF_INET, a)) {
					continue;
				}
			} else {
				memcpy(a, e->addr, sizeof(a));
			}
			if (nwrap_ai_want(h, l, pass, fam)) {
				rc = nwrap_ai_push(l, h, fam, a, pass == 1,
						   db->text + e->names);
			}
		}
	}
	if (rc == 0 && l->n == 0) {
		/* a name the file has, in another family only, is ours */
		rc = db != NULL &&
			     nwrap_db_host_first(db, name, &it) != NWRAP_NONE
			 ? NWRAP_EAI_KNOWN
			 : EAI_NONAME;
	}
	nwrap_cache_release(&nwrap_cache_hosts);
	return rc;
}

/* Addresses of `name`: the file's if it has the name (in any family, as
 * upstream answers), else the module's; EAI_* as nwrap_ai_file. */
static int nwrap_ai_lookup(const char *name, const struct addrinfo *h,
			   struct nwrap_ai_list *l)
{
	int rc = nwrap_ai_file(name, h, l);

	if (rc == EAI_NONAME && nwrap_config()->module_enabled) {
		rc = nwrap_ai_module(name, h, l);
		if (rc == 0 && l->n == 0) {
			rc = EAI_NONAME;
		}
	}
	return rc;
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
		s6->sin6_scope_id = a->scope;
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

/* A scope as glibc reads it: an interface name for a link-local address
 * (unicast, or multicast node- or link-local), else a decimal number up
 * to UINT32_MAX (a digit first: no blank, no sign). Anything else names
 * no scope. */
static bool nwrap_scope(const unsigned char addr[16], const char *s,
			uint32_t *scope)
{
	struct in6_addr a6;
	unsigned long long v;
	char *end = NULL;

	memcpy(&a6, addr, sizeof(a6));
	if (IN6_IS_ADDR_LINKLOCAL(&a6) || IN6_IS_ADDR_MC_NODELOCAL(&a6) ||
	    IN6_IS_ADDR_MC_LINKLOCAL(&a6)) {
		/* an ioctl on a local AF_UNIX socket, no network */
		unsigned i = if_nametoindex(s);

		if (i != 0) {
			*scope = i;
			return true;
		}
	}
	if (*s < '0' || *s > '9') {
		return false;
	}
	v = strtoull(s, &end, 10);
	if (*end != '\0' || v > UINT32_MAX) {
		return false;
	}
	*scope = (uint32_t)v;
	return true;
}

enum nwrap_numeric {
	NWRAP_NAME,	/* not a numeric address */
	NWRAP_NUMERIC,	/* *a filled */
	NWRAP_BADSCOPE, /* IPv6 with a scope that names no interface */
};

/* Is `node` an address for glibc: inet_aton's IPv4 forms (without the
 * trailing text inet_aton tolerates) or IPv6 with an optional %scope? */
static enum nwrap_numeric nwrap_numeric_host(const char *node,
					     struct nwrap_ai_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 1];
	const char *pct = strchr(node, '%');
	size_t n = pct != NULL ? (size_t)(pct - node) : strlen(node);
	struct in_addr a4;

	memset(a, 0, sizeof(*a));
	/* most names have a letter no numeric form can contain */
	for (const char *p = node; p < node + n; p++) {
		if (!strchr("0123456789abcdefABCDEFxX.:", *p)) {
			return NWRAP_NAME;
		}
	}
	if (pct == NULL && inet_aton(node, &a4) != 0) {
		a->family = AF_INET;
		memcpy(a->addr, &a4, 4);
		return NWRAP_NUMERIC;
	}
	if (n >= sizeof(buf)) {
		return NWRAP_NAME;
	}
	memcpy(buf, node, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, a->addr) != 1) {
		return NWRAP_NAME;
	}
	a->family = AF_INET6;
	if (pct != NULL && !nwrap_scope(a->addr, pct + 1, &a->scope)) {
		return NWRAP_BADSCOPE;
	}
	return NWRAP_NUMERIC;
}

/* The address list of a numeric host for the hints' family. */
static int nwrap_ai_numeric(struct nwrap_ai_addr *a, const struct addrinfo *h)
{
	if (a->family == AF_INET && h->ai_family == AF_INET6) {
		if (!(h->ai_flags & AI_V4MAPPED)) {
			return EAI_ADDRFAMILY;
		}
		memmove(a->addr + 12, a->addr, 4);
		memset(a->addr, 0, 10);
		a->addr[10] = a->addr[11] = 0xff;
		a->family = AF_INET6;
	} else if (a->family == AF_INET6 && h->ai_family == AF_INET) {
		if (!IN6_IS_ADDR_V4MAPPED((const void *)a->addr)) {
			return EAI_ADDRFAMILY;
		}
		memmove(a->addr, a->addr + 12, 4);
		memset(a->addr + 4, 0, 12);
		a->family = AF_INET;
		a->scope = 0;
	}
	return 0;
}

/* A NULL node: the wildcard (AI_PASSIVE) or loopback addresses. For
 * AF_UNSPEC in the order glibc gives on a host with both families: 0.0.0.0
 * before :: (sshd's "Server listening on 0.0.0.0", then "::"), ::1 before
 * 127.0.0.1. */
static size_t nwrap_ai_null(const struct addrinfo *h, struct nwrap_ai_addr *v)
{
	bool passive = (h->ai_flags & AI_PASSIVE) != 0;
	struct nwrap_ai_addr a4 = {.family = AF_INET},
			     a6 = {.family = AF_INET6};
	size_t n = 0;

	if (!passive) {
		a4.addr[0] = 127;
		a4.addr[3] = 1;
		a6.addr[15] = 1;
	}
	if (h->ai_family == AF_INET) {
		v[n++] = a4;
	} else if (h->ai_family == AF_INET6) {
		v[n++] = a6;
	} else if (passive) {
		v[n++] = a4;
		v[n++] = a6;
	} else {
		v[n++] = a6;
		v[n++] = a4;
	}
	return n;
}

/* The nodes: every address with every combination, the canonical name on
 * the first node (glibc) or on every node (`every`: upstream's names, as
 * the article's `getent ahosts` output shows). */
static int nwrap_ai_build(const struct nwrap_ai_addr *v, size_t nv,
			  const struct nwrap_combo *c, size_t nc, int flags,
			  const char *canon, bool every, struct addrinfo **res)
{
	struct addrinfo *head = NULL, **tail = &head;

	for (size_t i = 0; i < nv; i++) {
		for (size_t j = 0; j < nc; j++) {
			*tail =
			    nwrap_ai_node(&v[i], &c[j], flags,
					  head == NULL || every ? canon : NULL);
			if (*tail == NULL) {
				nwrap_freeaddrinfo(head);
				return EAI_MEMORY;
			}
			tail = &(*tail)->ai_next;
		}
	}
	*res = head;
	return 0;
}

/* libc's answer, copied into nodes of our own layout (one allocation per
 * node, and its canonical name), which our freeaddrinfo frees: not every
 * libc's freeaddrinfo frees node by node (musl's frees one block per
 * answer), and a program frees with ours while the file is in use. */
static int nwrap_ai_libc(const char *node, const char *service,
			 const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo *theirs = NULL, *head = NULL, **tail = &head;
	int rc = libc_getaddrinfo(node, service, hints, &theirs);

	if (rc != 0) {
		return rc;
	}
	for (const struct addrinfo *t = theirs; t != NULL; t = t->ai_next) {
		struct addrinfo *ai = calloc(1, sizeof(*ai) + t->ai_addrlen);

		if (ai == NULL) {
			rc = EAI_MEMORY;
			break;
		}
		*ai = *t;
		ai->ai_next = NULL;
		ai->ai_canonname = NULL;
		ai->ai_addr = (struct sockaddr *)(void *)(ai + 1);
		memcpy(ai->ai_addr, t->ai_addr, t->ai_addrlen);
		*tail = ai;
		tail = &ai->ai_next;
		if (t->ai_canonname != NULL) {
			ai->ai_canonname = strdup(t->ai_canonname);
			if (ai->ai_canonname == NULL) {
				rc = EAI_MEMORY;
				break;
			}
		}
	}
	libc_freeaddrinfo(theirs);
	if (rc != 0) {
		nwrap_freeaddrinfo(head);
		return rc;
	}
	*res = head;
	return 0;
}

static int nwrap_ai_name(const char *node, const char *service,
			 const struct addrinfo *hints, const struct addrinfo *h,
			 struct addrinfo **res)
{
	struct nwrap_combo combos[NWRAP_COMBO_MAX];
	struct nwrap_ai_list list = {0};
	char key[NWRAP_NAME_KEY];
	size_t ncombo = 0;
	int rc;

	if (h->ai_flags & AI_NUMERICHOST) {
		return EAI_NONAME;
	}
	rc = nwrap_combos_names(service, h, combos, &ncombo);
	if (rc != 0) {
		return rc;
	}
	rc = nwrap_ai_lookup(nwrap_name_key(node, key), h, &list);
	if (rc == NWRAP_EAI_KNOWN) {
		rc = EAI_NONAME;
	} else if (rc == EAI_NONAME) {
		free(list.canon);
		if (nwrap_config()->hosts_only) {
			return EAI_NONAME;
		}
		/* not ours: where upstream sends it */
		return nwrap_ai_libc(node, service, hints, res);
	}
	if (rc == 0) {
		rc = nwrap_ai_build(list.v, list.n, combos, ncombo, h->ai_flags,
				    list.canon, true, res);
	}
	free(list.v);
	free(list.canon);
	return rc;
}

int nwrap_getaddrinfo(const char *node, const char *service,
		      const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo h = {.ai_family = AF_UNSPEC,
			     .ai_flags = AI_V4MAPPED | AI_ADDRCONFIG};
	struct nwrap_combo combos[NWRAP_COMBO_MAX];
	struct nwrap_ai_addr addrs[2];
	size_t ncombo = 0, naddr;
	int rc;

	if (hints != NULL) {
		h.ai_flags = hints->ai_flags;
		h.ai_family = hints->ai_family;
		h.ai_socktype = hints->ai_socktype;
		h.ai_protocol = hints->ai_protocol;
	}
	if (node == NULL && service == NULL) {
		return EAI_NONAME;
	}
	if ((h.ai_flags & ~NWRAP_AI_FLAGS) ||
	    (node == NULL && (h.ai_flags & AI_CANONNAME))) {
		return EAI_BADFLAGS;
	}
	if (h.ai_family != AF_UNSPEC && h.ai_family != AF_INET &&
	    h.ai_family != AF_INET6) {
		return EAI_FAMILY;
	}
	if (node == NULL) {
		naddr = nwrap_ai_null(&h, addrs);
	} else {
		switch (nwrap_numeric_host(node, &addrs[0])) {
		case NWRAP_NAME:
			return nwrap_ai_name(node, service, hints, &h, res);
		case NWRAP_BADSCOPE:
			rc = h.ai_family == AF_INET ? EAI_ADDRFAMILY
						    : EAI_NONAME;
			goto check_service;
		case NWRAP_NUMERIC:
			break;
		}
		naddr = 1;
		rc = nwrap_ai_numeric(&addrs[0], &h);
		if (rc != 0) {
			goto check_service;
		}
	}
	rc = nwrap_combos_glibc(service, &h, combos, &ncombo);
	if (rc != 0) {
		return rc;
	}
	return nwrap_ai_build(addrs, naddr, combos, ncombo, h.ai_flags,
			      (h.ai_flags & AI_CANONNAME) ? node : NULL, false,
			      res);
check_service:
	/* glibc reports a bad type or service before the address */
	{
		int src = nwrap_combos_glibc(service, &h, combos, &ncombo);

		return src != 0 ? src : rc;
	}
}

/* Exactly glibc's freeaddrinfo: safe for its results and ours. (Every
 * result nwrap_getaddrinfo returns is ours, libc's answers copied.) */
void nwrap_freeaddrinfo(struct addrinfo *ai)
{
	while (ai != NULL) {
		struct addrinfo *next = ai->ai_next;

		free(ai->ai_canonname);
		free(ai);
		ai = next;
	}
}
